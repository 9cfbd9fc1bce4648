import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Runtime } from '../../app/runtime.js';
import { parseToolInput } from '../../tool/mcp-shape.js';
import { fileIndexes, implicitRoot, rootSpecsOf } from '../../tools/retrieve/shared.js';

/** How long after its start the daemon waits for a command to search first (it then builds nothing twice). */
const WARM_AFTER_MS = 1_000;

/**
 * Builds the file index of the config's roots as the daemon starts, off any command's path: one
 * search for a text no file holds walks every root, reads each file once (its trigram filter and
 * a cached copy follow in the background) and sets the folder watches. Without it the first
 * searches after a start paid all of that: on a 59,000-file tree they took 1.7, 0.8, 0.7, then
 * 0.5 s while ripgrep took 0.5 s, and only ~20 s later 0.1 s (the figure docs/guide/gateway.md gave).
 * A command that searches within WARM_AFTER_MS does the walk itself (two searches reading the
 * whole tree at once in one thread would both be slow); the warm-up then only finishes the work.
 */
export async function warmRoots(runtime: Runtime, say: (line: string) => void): Promise<void> {
  await sleep(WARM_AFTER_MS, undefined, { ref: false });
  const started = performance.now();
  try {
    const search = (await runtime.allTools()).find((tool) => tool.name === 'search');
    if (!search) return;
    // The roots serve would have (rootSpecsOf under its rule): named by the config or DOCS_ROOT /
    // CODE_ROOT, else a project config's folder. The root of a daemon of the user config is the
    // folder each command runs in, unknown now; the folder the daemon started in may be a home.
    const asServe = { ...runtime.context({ cwd: process.cwd(), env: runtime.env }), surface: 'mcp' as const };
    if ((await rootSpecsOf(asServe)).length === 0) return;
    const context = runtime.context({ cwd: implicitRoot(asServe) ?? process.cwd(), env: runtime.env });
    const input = parseToolInput(search, { query: `mcpkit-warm-up-${randomUUID()}`, limit: 1 });
    const index = await fileIndexes(context);
    if (!index?.roots().length) await search.run(input, context);
    // Once the filters are built, one more search runs the path every later search takes, so
    // that it is compiled before a person's search needs it (about 0.2 s on the first one).
    await index?.settled();
    await search.run(input, context);
    const roots = index?.roots() ?? [];
    say(`file index built in ${Math.round(performance.now() - started)} ms: ${roots.map((r) => `${r.root} (${r.files} files)`).join(', ') || 'no roots'}`);
  } catch (error) {
    // A root that cannot be searched now is reported by the command that searches it.
    say(`file index not built at start: ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}`);
  }
}
