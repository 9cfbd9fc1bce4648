import { config } from 'zod';

// Imported first by serve's fast path; in its script form (the one a start takes) that is before any
// schema is made. The ES-module fallback's split build runs the schema chunks before this entry, so
// there zod keeps its JIT: the same results, a little more CPU at start. zod reads `jitless` as each object
// schema is made. With it off, zod writes and compiles a parser (new Function) for each object
// schema the first time it parses one: at every serve start, for the MCP SDK's message schemas and
// mcpkit's own, ~8 ms CPU of a ~300 ms stdio start (19 ms of 640 profiled), compiled again by every
// process (V8's code cache keeps no eval'd code). Without it zod runs the same checks as it does for
// every async parse, with the same results and issues (test/unit/zod-jitless.test.ts holds the two
// equal on MCP's messages and mcpkit's tool inputs); a long session parses a little slower per message.
config({ jitless: true });
