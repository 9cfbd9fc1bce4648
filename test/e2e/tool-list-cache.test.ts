import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir, runCommand } from '../helpers/cli.js';
import { fileTools, SERVERS } from '../helpers/upstreams.js';

/**
 * Without a daemon, a command starts only what it needs: each server's last tools/list is kept
 * (XDG_CACHE_HOME/mcpkit/tools), `call` starts only the server the kept listing names and checks
 * the tool there, and `tools --cached` answers from the kept listings alone.
 */

function setUp(extra: Record<string, unknown> = {}) {
  const dir = tempDir('mcpkit-test-tool-cache-');
  const started = join(dir, 'started.log');
  const names = ['alpha', 'beta', 'gamma', 'delta'];
  const servers: Record<string, unknown> = {};
  for (const name of names) {
    const tools = join(dir, `${name}.json`);
    writeFileSync(tools, JSON.stringify([tool(`${name}_hello`), tool(`${name}_other`)]));
    servers[name] = { ...fileTools(tools), env: { STARTED_LOG: started } };
  }
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, JSON.stringify({ pinning: 'off', mcp_servers: { ...servers, ...extra } }));
  const env = cleanEnv({ MCPKIT_CONFIG: config });
  const mcpkit = (...args: string[]) => runCommand(args, { env, cwd: dir });
  /** The servers started since the last look (and forget them). */
  const startedSince = () => {
    const list = existsSync(started) ? readFileSync(started, 'utf8').trim().split('\n').filter(Boolean).sort() : [];
    rmSync(started, { force: true });
    return list;
  };
  return { dir, config, env, mcpkit, startedSince };
}

function tool(name: string) {
  return { name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
}

describe.concurrent('the kept tool listings', () => {
  it('call starts only the server that has the tool, once a command has listed them', async () => {
    const { mcpkit, startedSince } = setUp();
    // Nothing kept yet: the first call looks at every server.
    expect(await mcpkit('call', 'beta__beta_hello', 'text=one')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('called beta_hello with {"text":"one"}'),
    });
    expect(startedSince()).toEqual(['alpha.json', 'beta.json', 'delta.json', 'gamma.json']);
    expect(await mcpkit('call', 'gamma__gamma_other', 'text=two')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('called gamma_other with {"text":"two"}'),
    });
    expect(startedSince()).toEqual(['gamma.json']);
    // --json prints the same result.
    const json = await mcpkit('call', 'delta__delta_hello', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('called delta_hello') }] });
    expect(startedSince()).toEqual(['delta.json']);
  }, 60_000);

  it('a server that announces list_changed when it starts (server-everything) does not make the call start the others', async () => {
    const { mcpkit, startedSince } = setUp({ everything: SERVERS.everything });
    expect((await mcpkit('tools')).code).toBe(0);
    startedSince();
    expect(await mcpkit('call', 'everything__echo', 'message=hi')).toMatchObject({ code: 0, stdout: 'Echo: hi\n' });
    expect(startedSince()).toEqual([]);
  }, 60_000);

  it('never trusts a stale listing for a call: the started server checks the tool, and a tool that is gone is NOT_FOUND', async () => {
    const { dir, mcpkit, startedSince } = setUp();
    expect((await mcpkit('tools', '--json')).code).toBe(0); // lists and keeps every server's tools
    startedSince();
    // gamma's tools change behind the kept listing: gamma_hello is gone, gamma_new is there.
    writeFileSync(join(dir, 'gamma.json'), JSON.stringify([tool('gamma_new'), tool('gamma_other')]));
    const gone = await mcpkit('call', 'gamma__gamma_hello');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('Error [NOT_FOUND]: No tool named "gamma__gamma_hello"');
    // gamma was started to check; the error's suggestions then listed every server (and kept their listings).
    expect(startedSince()).toEqual(['alpha.json', 'beta.json', 'delta.json', 'gamma.json']);
    // The kept listing is gamma's new one now: gamma_new starts gamma alone.
    expect(await mcpkit('call', 'gamma__gamma_new', 'text=x')).toMatchObject({ code: 0, stdout: expect.stringContaining('called gamma_new') });
    expect(startedSince()).toEqual(['gamma.json']);
    // A tool no kept listing has is looked for in every server, live.
    writeFileSync(join(dir, 'alpha.json'), JSON.stringify([tool('alpha_hello'), tool('alpha_fresh')]));
    expect(await mcpkit('call', 'alpha__alpha_fresh')).toMatchObject({ code: 0, stdout: expect.stringContaining('called alpha_fresh') });
    expect(startedSince()).toEqual(['alpha.json', 'beta.json', 'delta.json', 'gamma.json']);
  }, 60_000);

  it('tools --cached answers from the kept listings without starting a server, and names a server never listed', async () => {
    const { config, mcpkit, startedSince } = setUp();
    const before = await mcpkit('tools', '--cached', '--json');
    expect(before.code).toBe(0);
    expect((JSON.parse(before.stdout) as { group: string }[]).filter((t) => t.group.startsWith('server:'))).toEqual([]);
    expect(before.stderr).toContain('mcpkit: server alpha has no cached listing; "mcpkit tools" without --cached lists it');
    expect(startedSince()).toEqual([]);

    const live = await mcpkit('tools', '--json');
    startedSince();
    const cached = await mcpkit('tools', '--cached', '--json');
    expect(startedSince()).toEqual([]);
    expect(JSON.parse(cached.stdout)).toEqual(JSON.parse(live.stdout));
    expect(cached.stderr).toBe('');

    // An edited entry is another server: its old listing is not used.
    const edited = JSON.parse(readFileSync(config, 'utf8')) as { mcp_servers: Record<string, { env: Record<string, string> }> };
    edited.mcp_servers.beta!.env.EXTRA = '1';
    writeFileSync(config, JSON.stringify(edited));
    const after = await mcpkit('tools', '--cached');
    expect(after.stderr).toContain('mcpkit: server beta has no cached listing');
    expect(after.stdout).toContain('alpha__alpha_hello');
    expect(after.stdout).not.toContain('beta__beta_hello');
    expect((await mcpkit('tools', '--cached', '--local')).code).toBe(2); // one or the other
  }, 60_000);
});
