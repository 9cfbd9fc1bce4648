#!/usr/bin/env node
const argv = process.argv.slice(2);
// MCP clients start `mcpkit serve` often, and scripts run `retrieve` commands in loops: plain
// invocations of those skip oclif's start-up (see serve-fast-path.ts and tool-fast-path.ts), and
// so does `call` of an upstream tool when mcpkit daemon runs (call-fast-path.ts).
const fast =
  (argv[0] === 'serve' && (await (await import('../dist/cli/serve-fast-path.js')).fastServe(argv.slice(1), import.meta.url))) ||
  (argv[0] === 'retrieve' && (await (await import('../dist/cli/tool-fast-path.js')).fastTool(argv))) ||
  (argv[0] === 'call' && (await (await import('../dist/cli/call-fast-path.js')).fastCall(argv.slice(1))));
if (!fast) await (await import('../dist/cli/main.js')).main(import.meta.url);
