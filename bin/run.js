#!/usr/bin/env node
let argv = process.argv.slice(2);
// `mcpkit --config F view create x`: the shared flags written before the command move after it.
if (/^--(config|jq|json)(=|$)/.test(argv[0] ?? '')) argv = (await import('../dist/cli/global-flags.js')).hoistGlobalFlags(argv);
// MCP clients start `mcpkit serve` often, and scripts run `retrieve` commands in loops: plain
// invocations of those skip oclif's start-up (see serve-fast-path.ts and tool-fast-path.ts), and
// the commands mcpkit daemon runs go straight to it when one runs (src/daemon/client/fast-path.ts).
// Each tab press at a name runs `complete-names` while a user waits (complete-names-fast-path.ts).
// `daemon start|stop|status` run around every daemon (`daemon: auto` starts one): daemon-control-fast-path.ts.
const warm =
  argv[0] === 'call' ||
  argv[0] === 'retrieve' ||
  argv[0] === 'tools' ||
  argv[0] === 'code' ||
  (argv[0] === 'view' && argv[1] === 'tools') ||
  (argv[0] === 'server' && argv[1] === 'test');
// The daemon's client, and `daemon start|stop|status`, are one CommonJS file each (scripts/build.mjs says why).
const commonJs = async (file) => (await import('node:module')).createRequire(import.meta.url)(`../dist/cli/${file}`);
// serve's fast path runs from its script form, which starts from V8's code cache
// (src/cli/cached-script.ts), kept only when the fast path takes the command (not `serve --help`).
const fastServe = async () => {
  const { exports, keep, warm } = await (await import('../dist/cli/cached-script.js')).loadEntry('serve-fast-path');
  return exports.fastServe(argv.slice(1), import.meta.url, keep, warm);
};
// A value left empty (`--token=`) is never the fast path's (src/cli/args/serve-args.ts leaves it to
// oclif, which words the mistake): serve's script, the largest, is not loaded only to hand the line on.
const fast =
  (argv[0] === 'serve' && !argv.some((a) => /^--[^=]+=$/.test(a)) && (await fastServe())) ||
  // --no-daemon is settled here: the daemon's client (190 KB) is not loaded to be told no.
  (warm && !argv.slice(0, argv.indexOf('--') >>> 0).includes('--no-daemon') && (await (await commonJs('daemon-fast-path.cjs')).fastDaemon(argv))) ||
  (argv[0] === 'retrieve' && (await (await import('../dist/cli/tool-fast-path.js')).fastTool(argv))) ||
  (argv[0] === 'daemon' && (await (await commonJs('daemon-control.cjs')).fastDaemonControl(argv.slice(1)))) ||
  (argv[0] === 'complete-names' && (await (await import('../dist/cli/complete-names-fast-path.js')).fastCompleteNames(argv.slice(1))));
// Everything else goes to oclif, from its script form too (the cache is made at the command's
// successful exit, or a minute on; without the script, the ES modules run: cached-script.ts).
// Not from a line that only asks for help or the version: it compiles little of the commands, and
// the first cache of a build is kept for good (every later command would compile the rest again).
const onlyHelp = (line) => line.length === 0 || line[0] === 'help' || line.some((a) => /^(--help|-h|--version|-v)$/.test(a));
if (!fast) {
  const { exports, keep } = await (await import('../dist/cli/cached-script.js')).loadEntry('cli-main', './main.js');
  if (!onlyHelp(argv.slice(0, argv.indexOf('--') >>> 0))) keep();
  await exports.main(import.meta.url, argv);
}
