import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';
import { alive, waitFor } from './upstreams.js';

/** A test context's hook (`onTestFinished`): each test ends its own daemons, so tests may run a few at a time. */
export type Finished = (hook: () => Promise<void>) => void;

/** Ends every daemon whose runtime folder is `runtimeDir` (they are detached processes), all at once: SIGTERM, SIGKILL after 5 s. */
export async function stopDaemonsIn(runtimeDir: string): Promise<void> {
  const folder = join(runtimeDir, 'mcpkit');
  if (!existsSync(folder)) return;
  const records = readdirSync(folder).filter((f) => f.endsWith('.json'));
  await Promise.all(
    records.map(async (file) => {
      try {
        const { pid } = JSON.parse(readFileSync(join(folder, file), 'utf8')) as { pid: number };
        process.kill(pid, 'SIGTERM');
        if (!(await waitFor(() => !alive(pid), 5_000))) process.kill(pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }),
  );
}

/** A 0700 runtime folder (XDG_RUNTIME_DIR) of the test's own; its daemons are ended when the test finishes, pass or fail. */
export function daemonRuntimeDir(finished: Finished, parent = tempDir('mcpkit-test-daemon-')): string {
  const dir = join(parent, 'run');
  mkdirSync(dir, { mode: 0o700 });
  finished(() => stopDaemonsIn(dir));
  return dir;
}
