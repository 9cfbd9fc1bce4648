import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { cleanEnv, runCli, runCommand } from '../helpers/cli.js';
import { daemonRuntimeDir } from '../helpers/daemons.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * `mcpkit code run` enters the port every call enters (Dispatcher.call), as `mcpkit call` does:
 * each call a script makes is the terminal's (client `terminal`, to conditions too), refused by a
 * view's conditions as an agent's call over MCP is, and audited (surface cli, client terminal, the
 * run as its parent, via code_run) when serve.audit_log is set. In this process, and through a
 * real daemon, against a real server.
 */

const CONFIG = {
  mcp_servers: { everything: SERVERS.everything },
  tool_views: {
    guarded: { servers: ['everything'], conditions: { '*echo': { when: 'size(args.message) <= 8', message: 'Short messages only.' } } },
    agents: { servers: ['everything'], conditions: { '*echo': { when: "client != 'terminal'", message: 'Agents only, not a terminal.' } } },
  },
  serve: { audit_log: 'audit.jsonl' },
};

/** A script that calls echo and answers with its value, or with the error the call was refused with. */
const ECHO = (message: string) =>
  `try { return await tools.everything.echo({ message: ${JSON.stringify(message)} }); } catch (e) { return { code: e.code, message: e.message }; }`;

function place() {
  const config = writeConfig(CONFIG);
  const dir = dirname(config);
  const script = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const lines = (): AuditEntry[] => {
    const file = join(dir, 'audit.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
  };
  return { config, dir, script, lines };
}

// The two suites run at once: the daemon's has a config, folder and runtime dir of its own, and
// waits on the daemon's processes while the first suite's commands run here; the first suite's
// tests share one config and its audit log, and run in turn.
describe.concurrent('mcpkit code run: the same chain as an agent call', () => {
  let at: ReturnType<typeof place>;
  const env = cleanEnv({ MCPKIT_NO_DAEMON: '1' });
  beforeAll(() => {
    at = place();
  });
  const codeRun = (file: string, ...flags: string[]) => runCommand(['code', 'run', file, ...flags, '--config', at.config], { env, cwd: at.dir });

  it.sequential('writes an audit line for each call of the script: surface cli, client terminal, the run as its parent', async () => {
    const ran = await codeRun(at.script('two.js', "await tools.everything.echo({ message: 'one' }); return await tools.everything.echo({ message: 'two' });"));
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.trim()).toBe('Echo: two');
    const calls = at.lines().slice(-2);
    expect(calls).toHaveLength(2);
    for (const line of calls) {
      expect(line).toMatchObject({
        method: 'tools/call',
        surface: 'cli',
        client: 'terminal',
        server: 'everything',
        upstream_name: 'echo',
        outcome: 'ok',
        via: 'code_run',
      });
      expect(line.parent).toMatch(/^terminal-run-/);
    }
    // One run: both calls name the same parent.
    expect(calls[0]!.parent).toBe(calls[1]!.parent);
  });

  it.sequential("refuses a call that does not meet a view's condition as serve refuses an agent's, and audits the refusal", async () => {
    const ran = await codeRun(at.script('long.js', ECHO('far too long a message')), '--view', 'guarded');
    expect(ran.code, ran.stderr).toBe(0);
    const refused = JSON.parse(ran.stdout) as { code: string; message: string };
    expect(refused.code).toBe('CONDITION_FAILED');
    expect(refused.message).toMatch(/tool_views\.guarded\.conditions: Short messages only\./);
    expect(at.lines().at(-1)).toMatchObject({ surface: 'cli', client: 'terminal', view: 'guarded', outcome: 'refused_by_condition', via: 'code_run' });
    // The agent's refusal over MCP, from the same config and view, says the same.
    const serve = await serveStdioInProcess({ config: at.config, flags: { view: 'guarded' } });
    try {
      const agent = (await serve.client.callTool({ name: 'echo', arguments: { message: 'far too long a message' } })) as {
        isError?: boolean;
        structuredContent?: { error?: { code: string; message: string } };
      };
      expect(agent.isError).toBe(true);
      expect(agent.structuredContent?.error).toMatchObject({ code: refused.code, message: refused.message });
    } finally {
      await serve.close();
    }
  });

  it.sequential('is the client `terminal` to conditions, as `mcpkit call` is: a view that refuses terminals refuses both', async () => {
    const ran = await codeRun(at.script('short.js', ECHO('hi')), '--view', 'agents');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ code: 'CONDITION_FAILED', message: expect.stringMatching(/Agents only, not a terminal\./) });
    const called = await runCommand(['call', 'echo', 'message=hi', '--view', 'agents', '--config', at.config], { env, cwd: at.dir });
    expect(called.code).not.toBe(0);
    expect(called.stderr).toMatch(/CONDITION_FAILED[\s\S]*Agents only, not a terminal\./);
  });
});

describe.concurrent('through the daemon', () => {
  it("code run's calls and call's refusals take the same chain in the daemon: refused, and audited as the terminal's", async ({ onTestFinished }) => {
    const at = place();
    const env = cleanEnv({ XDG_RUNTIME_DIR: daemonRuntimeDir(onTestFinished, at.dir), MCPKIT_CONFIG: at.config });
    const mcpkit = (...args: string[]) => runCli(args, { env, cwd: at.dir });
    const started = await mcpkit('daemon', 'start');
    expect(started.code, started.stderr).toBe(0);
    const ran = await mcpkit('code', 'run', at.script('long.js', ECHO('far too long a message')), '--view', 'guarded');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ code: 'CONDITION_FAILED' });
    expect(at.lines().at(-1)).toMatchObject({ surface: 'cli', client: 'terminal', view: 'guarded', outcome: 'refused_by_condition', via: 'code_run' });
    const called = await mcpkit('call', 'echo', 'message=far too long a message', '--view', 'guarded');
    expect(called.code).not.toBe(0);
    expect(called.stderr).toMatch(/CONDITION_FAILED[\s\S]*Short messages only\./);
    expect(at.lines().at(-1)).toMatchObject({ surface: 'cli', client: 'terminal', view: 'guarded', outcome: 'refused_by_condition' });
    expect(at.lines().at(-1)).not.toHaveProperty('via');
    // mcpkit's own tools that a script calls in the daemon read the command's folder, not the daemon's.
    const sub = join(at.dir, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'marker-file.txt'), '');
    const listed = await runCli(
      ['code', 'run', at.script('ls.js', "return (await tools.mcpkit.list_dir({ repo: 'code' })).result.entries.map((e) => e.name);")],
      {
        env,
        cwd: sub,
      },
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(['marker-file.txt']);
    // The lines were the daemon's work: it answered them (and the status asked now).
    const status = JSON.parse((await mcpkit('daemon', 'status', '--json')).stdout) as { status?: { requests: number } };
    expect(status.status?.requests).toBeGreaterThanOrEqual(4);
  }, 120_000);
});
