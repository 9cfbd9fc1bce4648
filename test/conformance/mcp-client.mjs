#!/usr/bin/env node
// The conformance suite's client for its plain (not OAuth) client scenarios, with mcpkit as the
// client, driven as a user would drive it:
//   conformance client --command "node test/conformance/mcp-client.mjs" --scenario tools_call --spec-version 2026-07-28
// It adds the server URL (the last argument) to a scratch config, pinned to 2025-11-25 on a 2025
// run and left to `protocol: auto` (server/discover, then the -32022 correction) on a 2026 run,
// then does what the scenario asks: list the tools (`server test`, `tools`), call one (answering
// what the server asks during the call with --elicitation).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcpkitWith } from './mcpkit-runner.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '../../bin/run.js');
const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const modern = (process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25') >= '2026';
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-client-'));
const env = { ...process.env, MCPKIT_CONFIG: join(scratch, 'mcpkit.yaml'), XDG_STATE_HOME: join(scratch, 'state'), NO_COLOR: '1' };

const run = mcpkitWith(env);
async function mcpkit(...args) {
  const r = await run(...args);
  if (r.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    process.exit(1);
  }
  return r;
}

try {
  await mcpkit('server', 'add', 'conf', '--url', url, '--protocol', modern ? 'auto' : '2025-11-25');
  await mcpkit('server', 'test', 'conf');
  if (scenario === 'tools_call') await mcpkit('call', 'add_numbers', '--json', '--args', JSON.stringify({ a: 5, b: 3 }));
  // The server closes the call's stream mid-call; the client reconnects (retry field) and gets the result.
  if (scenario === 'sse-retry') await mcpkit('call', 'test_reconnection', '--json');
  // The calls the suite asks for (SEP-2243 custom headers: mcpkit mirrors the x-mcp-header parameters).
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  for (const call of context.toolCalls ?? []) await mcpkit('call', call.name, '--json', '--args', JSON.stringify(call.arguments));
  if (scenario === 'http-invalid-tool-headers') {
    // Only the valid tool may be listed; each listed tool is called (a refusal is fine).
    const tools = JSON.parse((await mcpkit('tools', '--json')).stdout).filter((t) => t.group === 'server:conf');
    for (const tool of tools)
      spawnSync(process.execPath, [bin, 'call', tool.name, '--json', '--args', JSON.stringify({ region: 'us-west1' })], { env, timeout: 60_000 });
  }
  // The server asks for input during the call (SEP-1034 defaults; 2026-07-28 MRTR, SEP-2322):
  // a script's answer, each form accepted with its defaults.
  if (scenario === 'elicitation-sep1034-client-defaults')
    await mcpkit('call', 'test_client_elicitation_defaults', '--json', '--elicitation', 'accept-defaults');
  if (scenario === 'sep-2322-client-request-state')
    for (const tool of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated', 'test_mrtr_no_result_type'])
      await mcpkit('call', tool, '--json', '--elicitation', 'accept-defaults');
  if (scenario === 'json-schema-2020-12-preservation') {
    // The focal tool's inputSchema as mcpkit publishes it goes back through the echo tool.
    const tools = JSON.parse((await mcpkit('tools', '--json')).stdout);
    const focal = tools.find((t) => t.name === 'conf__json_schema_2020_12_tool');
    if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
    await mcpkit('call', 'json_schema_echo', '--json', '--args', JSON.stringify({ schema: focal.input_schema }));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
