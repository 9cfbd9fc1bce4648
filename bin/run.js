#!/usr/bin/env node
const argv = process.argv.slice(2);
// MCP clients start `mcpkit serve` often; plain invocations skip oclif's start-up (see serve-fast-path.ts).
const served = argv[0] === 'serve' && (await (await import('../dist/cli/serve-fast-path.js')).fastServe(argv.slice(1), import.meta.url));
if (!served) await (await import('../dist/cli/main.js')).main(import.meta.url);
