import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCommand, tempDir } from '../helpers/cli.js';
import { stopDaemonsIn } from '../helpers/daemons.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * `mcpkit call --task` and `mcpkit tasks`: a call started in the config's daemon (started for it),
 * followed, waited for and cancelled from later commands, against server-everything.
 */

const dir = tempDir('mcpkit-test-tasks-');
const runtimeDir = join(dir, 'run');
mkdirSync(runtimeDir, { mode: 0o700 });
const file = join(dir, 'mcpkit.yaml');
writeFileSync(file, `mcp_servers:\n  everything: ${JSON.stringify(SERVERS.everything)}\n`);
const env = cleanEnv({ XDG_RUNTIME_DIR: runtimeDir, MCPKIT_CONFIG: file });
/** `call --task` as a user's shell runs it: the process that starts the daemon, or hands the call to it. */
const mcpkit = (args: string[]) => runCli(args, { env, cwd: dir });
/**
 * The `tasks` commands and `daemon stop`, run in this process: each is a client of the daemon
 * that holds the tasks (it connects to the socket the environment names), so the daemon is still
 * what answers; a process start each would add nothing the test looks at.
 */
const here = (args: string[]) => runCommand(args, { env, cwd: dir });
const json = async (args: string[], run = here) => {
  const r = await run([...args, '--json']);
  return { ...r, body: JSON.parse(r.stdout || '{}') as Record<string, any> };
};

// By the records beside the sockets, with signals: ended even when a test failed half-way or the
// build it would stop it with is gone.
afterAll(() => stopDaemonsIn(runtimeDir));

describe('tasks in the terminal', () => {
  it('call --task starts the daemon and answers with a task at once; tasks wait prints its result; cancel stops one; list shows both', async () => {
    const started = Date.now();
    const first = await json(['call', 'everything__trigger-long-running-operation', 'duration=2', 'steps=4', '--task'], mcpkit);
    expect(first.code, first.stderr).toBe(0);
    expect(first.body).toMatchObject({
      task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'working',
      tool: 'everything__trigger-long-running-operation',
    });
    const id = first.body.task_id as string;
    // The second task starts (a process) while the first is waited for: the two are independent,
    // and the list at the end still sees the second started after the first.
    const [waited, long] = await Promise.all([
      here(['tasks', 'wait', id]).then((r) => ({ ...r, at: Date.now() })),
      json(['call', 'everything__trigger-long-running-operation', 'duration=60', 'steps=60', '--task'], mcpkit),
    ]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toContain('Long running operation completed');
    expect(waited.at - started).toBeGreaterThanOrEqual(2000);
    expect((await json(['tasks', 'get', id])).body).toMatchObject({ status: 'completed' });

    expect(long.code, long.stderr).toBe(0);
    const longId = long.body.task_id as string;
    // The 60-second task is the one asked about while it runs: a loaded machine can spend the short
    // one's 2 seconds on starting the CLI twice.
    expect((await json(['tasks', 'get', longId])).body).toMatchObject({ task_id: longId, status: 'working' });
    expect((await json(['tasks', 'cancel', longId])).body).toMatchObject({ status: 'cancelled' });
    const cancelled = await here(['tasks', 'wait', longId]);
    expect(cancelled.code).toBe(1);
    expect(cancelled.stderr).toContain('was cancelled');
    const listed = await json(['tasks', 'list']);
    expect(listed.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([longId, id]);
  }, 60_000);

  // Answered by the daemon the first test started: the test after this one stops it, and a
  // second daemon (and a second server-everything in it) would add a start and nothing tested.
  it('call --task without --json prints the id alone on stdout, so T=$(mcpkit call ... --task) holds just the id; the hint goes to stderr', async () => {
    const started = await mcpkit(['call', 'everything__trigger-long-running-operation', 'duration=1', 'steps=1', '--task']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const id = started.stdout.trim();
    expect(started.stderr).toContain(`Follow it with: mcpkit tasks wait ${id}`);
    const waited = await here(['tasks', 'wait', id]);
    expect(waited.code, waited.stderr).toBe(0);
  }, 30_000);

  it('an unknown task, and no daemon at all, say so', async () => {
    const unknown = await here(['tasks', 'get', 'no-such-task']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No task no-such-task in this config's daemon");
    expect((await here(['daemon', 'stop'])).code).toBe(0);
    const none = await here(['tasks', 'list']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No daemon runs for this config');
  }, 30_000);
});
