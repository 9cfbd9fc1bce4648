import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { runLinesInOneProcess } from '../helpers/oclif-lines.js';
import { serveStdioClient } from '../helpers/serve.js';
import { SERVERS, waitFor } from '../helpers/upstreams.js';
import { KEYRING_REQUIRED, startSecretService, type RunningSecretService } from '../support/secret-service.js';

/**
 * `mcpkit secret` and `${keyring:NAME}` against a real Secret Service (gnome-keyring-daemon on a
 * private D-Bus session: test/support/secret-service.ts), and what `secret set` says where none
 * runs. In CI (MCPKIT_KEYRING=required) a Secret Service that cannot start fails the run.
 */
const started: RunningSecretService | Error = await startSecretService().catch((error: Error) => error);
const service = started instanceof Error ? undefined : started;
if (started instanceof Error) console.log(`skipped: the keyring tests against a real Secret Service (${started.message})`);

describe.runIf(!service && KEYRING_REQUIRED)('the Secret Service in CI', () => {
  it('starts', () => {
    expect(started, 'a Secret Service is required here (MCPKIT_KEYRING=required): apt-get install gnome-keyring dbus').not.toBeInstanceOf(Error);
  });
});

describe('where no Secret Service runs', () => {
  it('secret set says so, points to ${file:}, and asks for no value', async () => {
    const env = cleanEnv({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(tempDir(), 'no-bus')}` });
    const r = await runCli(['secret', 'set', 'GH_TOKEN'], { env, input: 'never-stored\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNAVAILABLE.*system keyring cannot be reached/);
    expect(r.stderr).toContain('${file:PATH}');
    expect(r.stdout + r.stderr).not.toContain('never-stored');
  }, 60_000);
});

describe.skipIf(!service)('mcpkit secret against a real Secret Service', () => {
  const env = () => cleanEnv(service!.env);
  afterAll(async () => {
    await service?.stop();
  });

  it('set, get, list and remove: the value from stdin only, printed only when asked', async () => {
    const set = await runCli(['secret', 'set', 'GH_TOKEN'], { env: env(), input: 'ghp-round-trip\n' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain('ghp-round-trip');
    expect(set.stderr).toContain('${keyring:GH_TOKEN}');
    expect((await runCli(['secret', 'set', 'OTHER'], { env: env(), input: 'other-value' })).code).toBe(0);
    // The lines that read no stdin, in order, in one process (helpers/oclif-lines.ts), its stdout a
    // pipe as a process's each would be; the keyring's native module reads that process's environment.
    const [piped, revealed, listed, removed, listedAgain, again] = await runLinesInOneProcess(
      [
        ['secret', 'get', 'GH_TOKEN'],
        ['secret', 'get', 'GH_TOKEN', '--reveal'],
        ['secret', 'list', '--json'],
        ['secret', 'remove', 'OTHER'],
        ['secret', 'list', '--json'],
        ['secret', 'remove', 'OTHER'],
      ],
      { env: env() },
    );
    // Into a pipe only with --reveal.
    expect(piped!.code).toBe(1);
    expect(piped!.stderr).toMatch(/FORBIDDEN.*terminal only[\s\S]*--reveal/);
    expect(piped!.stdout).toBe('');
    expect(revealed!.stdout).toBe('ghp-round-trip\n');
    expect(JSON.parse(listed!.stdout)).toEqual({ names: ['GH_TOKEN', 'OTHER'] });
    expect(listed!.stdout).not.toMatch(/ghp-round-trip|other-value/);
    expect(removed!.code, removed!.stderr).toBe(0);
    expect(JSON.parse(listedAgain!.stdout)).toEqual({ names: ['GH_TOKEN'] });
    expect(again!.code).toBe(1);
    expect(again!.stderr).toMatch(/NOT_FOUND/);
  }, 90_000);

  it('refuses a value on the command line, and stores nothing', async () => {
    const [r, listed] = await runLinesInOneProcess(
      [
        ['secret', 'set', 'ARGV_TOKEN', 'on-the-command-line'],
        ['secret', 'list', '--json'],
      ],
      { env: env() },
    );
    expect(r!.code).toBe(2);
    expect(r!.stderr).toMatch(/never from the command line/);
    expect(JSON.parse(listed!.stdout).names).not.toContain('ARGV_TOKEN');
  }, 60_000);

  it('${keyring:NAME} reaches the server that uses it, and secret set restarts that one only', async () => {
    expect((await runCli(['secret', 'set', 'UPSTREAM_KEY'], { env: env(), input: 'keyring-v1\n' })).code).toBe(0);
    const config = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        serve: { keyring_poll_ms: 300 },
        mcp_servers: {
          keyed: { ...SERVERS.everythingProcess, env: { SECRET: '${keyring:UPSTREAM_KEY}' } },
          other: { ...SERVERS.everythingProcess, env: { SECRET: 'plain' } },
        },
      }),
    );
    const session = await serveStdioClient(config, 'keyring', service!.env);
    try {
      const envOf = async (server: string) => {
        const result = (await session.client.callTool({ name: `${server}__get-env`, arguments: {} })) as CallToolResult;
        return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, string>;
      };
      expect((await envOf('keyed')).SECRET).toBe('keyring-v1');
      await envOf('other');
      const set = await runCli(['secret', 'set', 'UPSTREAM_KEY'], { env: env(), input: 'keyring-v2\n' });
      expect(set.code, set.stderr).toBe(0);
      expect(await waitFor(async () => (await envOf('keyed')).SECRET === 'keyring-v2', 30_000, 250), session.stderr()).toBe(true);
      expect(session.stderr()).toMatch(/config reloaded \(generation 2\): servers restarted: keyed(;|\n|$)/);
      expect(session.stderr()).not.toMatch(/restarted: [^\n]*other/);
      // With the poll off, SIGHUP reads the keyring again.
      const pollOff = readFileSync(config, 'utf8').replace('"keyring_poll_ms":300', '"keyring_poll_ms":0');
      expect(pollOff).toContain('"keyring_poll_ms":0');
      writeFileSync(config, pollOff);
      expect(await waitFor(() => /generation 3/.test(session.stderr()), 30_000, 250), session.stderr()).toBe(true);
      expect((await runCli(['secret', 'set', 'UPSTREAM_KEY'], { env: env(), input: 'keyring-v3\n' })).code).toBe(0);
      process.kill(session.pid, 'SIGHUP');
      expect(await waitFor(async () => (await envOf('keyed')).SECRET === 'keyring-v3', 30_000, 250), session.stderr()).toBe(true);
      expect(session.stderr()).toMatch(/config reloaded \(generation 4\): servers restarted: keyed(;|\n|$)/);
      expect(session.stderr()).not.toMatch(/keyring-v/);
    } finally {
      await session.client.close();
    }
  }, 120_000);
});
