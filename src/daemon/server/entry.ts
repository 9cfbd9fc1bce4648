import type { loadEntry as LoadEntry } from '../../cli/cached-script.js';

/**
 * What `daemon start` (and `daemon: auto`) runs: `node dist/daemon/server/entry.js --config <path>`
 * (launch.ts). It starts the daemon (./daemon-main.ts) from its script form with V8's code cache,
 * as bin/run.js starts serve's fast path: Node 20 caches no ES module, and compiling the daemon's
 * modules was most of a bare daemon's start. The loader is the one bin/run.js loads, by its URL (built
 * on its own, not into this file); without a script it runs the ES module. The script holds oclif
 * and its commands too, for the lines the daemon runs through oclif: one copy of each module.
 */
const { loadEntry } = (await import(new URL('../../cli/cached-script.js', import.meta.url).href)) as { loadEntry: typeof LoadEntry };
const { exports, keep, warm } = await loadEntry('daemon-server', '../daemon/server/daemon-main.js');
await (exports.runDaemonEntry as (argv: readonly string[], cache: { keep(): void; warm(): void }) => Promise<void>)(process.argv.slice(2), { keep, warm });
