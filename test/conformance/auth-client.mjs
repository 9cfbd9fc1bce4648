#!/usr/bin/env node
// The conformance suite's client for its OAuth scenarios, with mcpkit as the client
// (client-lines.mjs authClient), run as a process of its own:
//   conformance client --command "node test/conformance/auth-client.mjs" --scenario auth/...
import { authClient } from './client-lines.mjs';
import { mcpkitWith } from './mcpkit-runner.mjs';

process.exitCode = await authClient(process.argv.at(-1), process.env, (env) => mcpkitWith(env));
