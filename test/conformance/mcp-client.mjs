#!/usr/bin/env node
// The conformance suite's client for its plain (not OAuth) client scenarios, with mcpkit as the
// client (client-lines.mjs plainClient), run as a process of its own:
//   conformance client --command "node test/conformance/mcp-client.mjs" --scenario tools_call --spec-version 2026-07-28
import { plainClient } from './client-lines.mjs';
import { mcpkitWith } from './mcpkit-runner.mjs';

process.exitCode = await plainClient(process.argv.at(-1), process.env, (env) => mcpkitWith(env));
