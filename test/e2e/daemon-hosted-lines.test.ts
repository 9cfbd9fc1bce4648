import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCommand, tempDir } from '../helpers/cli.js';
import { daemonRuntimeDir } from '../helpers/daemons.js';

/**
 * Command lines a program runs in its own process, one after another (cli/in-process.ts: the
 * tests, the conformance clients): each asks for the daemon afresh. A process remembers for its
 * life that no daemon runs (daemon/client/client.ts); a host that did would miss the daemon
 * started after its first line.
 */
describe('lines run in this process, and the daemon', () => {
  it('a line that found no daemon does not hide the one started after it from the next line', async ({ onTestFinished }) => {
    const dir = tempDir('mcpkit-test-hosted-');
    const file = join(dir, 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    const env = cleanEnv({ XDG_RUNTIME_DIR: daemonRuntimeDir(onTestFinished, dir), MCPKIT_CONFIG: file });
    const before = await runCommand(['tasks', 'list'], { env, cwd: dir });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('No daemon runs for this config');
    const started = await runCli(['daemon', 'start'], { env, cwd: dir });
    expect(started.code, started.stderr).toBe(0);
    const after = await runCommand(['tasks', 'list', '--json'], { env, cwd: dir });
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ tasks: [] });
  }, 60_000);
});
