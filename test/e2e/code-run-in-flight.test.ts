import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import { cleanEnv, runCommand } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * A `mcpkit code run` may end with a call still running: its script returned without awaiting
 * it. The run's port cancels that call and waits for it before the audit log is closed, so the
 * call still has its line (mcp/pipeline/port-calls.ts); one that does not end once cancelled is
 * written as cancelled after the grace. A real server whose tool takes seconds, and a real hook.
 */
/** `mcpkit code run FILE` in the config's folder, without a daemon. */
const runScript = (file: string, config: string) =>
  runCommand(['code', 'run', file, '--config', config], { env: cleanEnv({ MCPKIT_NO_DAEMON: '1' }), cwd: dirname(config) });

/** The audit log's lines, in order (none when it was never written). */
const auditLines = (path: string): AuditEntry[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditEntry)
    : [];

describe('mcpkit code run: a call left running when the script returns', () => {
  it('is cancelled, and its audit line is written before the run ends', async () => {
    const config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { audit_log: 'audit.jsonl' } });
    const dir = dirname(config);
    const file = join(dir, 'left.js');
    // Listed first, so that the slow call is surely under way when the script returns.
    writeFileSync(
      file,
      "await tools.everything.echo({ message: 'warm' });\nvoid tools.everything['trigger-long-running-operation']({ duration: 30, steps: 2 });\nawait sleep(300);\nreturn 'left';",
    );
    const ran = await runScript(file, config);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.trim()).toBe('left');
    const lines = auditLines(join(dir, 'audit.jsonl'));
    expect(lines.map((l) => l.upstream_name ?? l.name)).toEqual(['echo', 'trigger-long-running-operation']);
    const [echo, left] = lines as [AuditEntry, AuditEntry];
    expect(left).toMatchObject({ surface: 'cli', client: 'terminal', via: 'code_run', parent: echo.parent, server: 'everything' });
    // Cancelled, not answered: it was never awaited, and took 30 s to answer.
    expect(left.outcome).not.toBe('ok');
  }, 90_000);

  it('a call that does not end once cancelled (held in a pre_call hook) is written as cancelled after the grace', async () => {
    const config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, hooks: { pre_call: 'hold.mjs' }, serve: { audit_log: 'audit.jsonl' } });
    const dir = dirname(config);
    const audit = join(dir, 'audit.jsonl');
    // The hook hears no cancel: it holds its call until the audit log says the call was cancelled (at most a minute).
    writeFileSync(
      join(dir, 'hold.mjs'),
      `import { existsSync, readFileSync } from 'node:fs';
export async function pre_call(args) {
  const until = Date.now() + 60_000;
  while (args.message === 'held' && Date.now() < until && !(existsSync(${JSON.stringify(audit)}) && readFileSync(${JSON.stringify(audit)}, 'utf8').includes('CANCELLED')))
    await new Promise((resolve) => setTimeout(resolve, 100));
  return args;
}
`,
    );
    const file = join(dir, 'held.js');
    writeFileSync(
      file,
      "await tools.everything.echo({ message: 'warm' });\nvoid tools.everything.echo({ message: 'held' });\nawait sleep(300);\nreturn 'left';",
    );
    const ran = await runScript(file, config);
    expect(ran.code, ran.stderr).toBe(0);
    const lines = auditLines(audit);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      name: 'everything__echo',
      surface: 'cli',
      client: 'terminal',
      via: 'code_run',
      parent: lines[0]!.parent,
      outcome: 'protocol_error',
      error_code: 'CANCELLED',
    });
  }, 120_000);
});
