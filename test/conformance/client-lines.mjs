// What mcpkit does, as a user would drive it, in each of the conformance suite's client scenarios:
// the command lines of its plain (mcp-client.mjs) and OAuth (auth-client.mjs) clients. Each takes
// the server URL and the environment the suite gave the client (MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_CONTEXT, MCP_CONFORMANCE_PROTOCOL_VERSION), and a function that runs one mcpkit
// line (mcpkit-runner.mjs); it answers with the exit status the client ends with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `body` with a scratch config, state and cache of its own; a line that fails ends the client with 1. */
async function withScratch(prefix, suiteEnv, extra, runnerFor, body) {
  const scratch = mkdtempSync(join(suiteEnv.TMPDIR ?? tmpdir(), prefix));
  // The cache too (each server's last tools/list, app/tool-list-cache.ts): under the user's ~/.cache,
  // every scenario left a file there (a server URL of its own), thousands of them across runs.
  const env = {
    ...suiteEnv,
    MCPKIT_CONFIG: join(scratch, 'mcpkit.yaml'),
    XDG_STATE_HOME: join(scratch, 'state'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
    NO_COLOR: '1',
    ...extra,
  };
  const run = runnerFor(env);
  const failed = new Error('a line failed');
  const must = (r) => {
    if (r.status !== 0) throw failed;
    return r;
  };
  const mcpkit = async (...args) => must(await run(...args));
  try {
    await body({ env, run, mcpkit, must });
    return 0;
  } catch (error) {
    if (error === failed) return 1;
    throw error;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The plain scenarios: the server URL added to a scratch config, pinned to 2025-11-25 on a 2025
 * run and left to `protocol: auto` (server/discover, then the -32022 correction) on a 2026 run,
 * then what the scenario asks: list the tools (`server test`, `tools`), call one (answering what
 * the server asks during the call with --elicitation).
 */
export function plainClient(url, suiteEnv, runnerFor) {
  const scenario = suiteEnv.MCP_CONFORMANCE_SCENARIO ?? '';
  const modern = (suiteEnv.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25') >= '2026';
  return withScratch('mcpkit-conformance-client-', suiteEnv, {}, runnerFor, async ({ run, mcpkit }) => {
    await mcpkit('server', 'add', 'conf', '--url', url, '--protocol', modern ? 'auto' : '2025-11-25');
    await mcpkit('server', 'test', 'conf');
    if (scenario === 'tools_call') await mcpkit('call', 'add_numbers', '--json', '--args', JSON.stringify({ a: 5, b: 3 }));
    // The server closes the call's stream mid-call; the client reconnects (retry field) and gets the result.
    if (scenario === 'sse-retry') await mcpkit('call', 'test_reconnection', '--json');
    // The calls the suite asks for (SEP-2243 custom headers: mcpkit mirrors the x-mcp-header parameters).
    const context = JSON.parse(suiteEnv.MCP_CONFORMANCE_CONTEXT || '{}');
    for (const call of context.toolCalls ?? []) await mcpkit('call', call.name, '--json', '--args', JSON.stringify(call.arguments));
    if (scenario === 'http-invalid-tool-headers') {
      // Only the valid tool may be listed; each listed tool is called (a refusal is fine).
      const tools = JSON.parse((await mcpkit('tools', '--json')).stdout).filter((t) => t.group === 'server:conf');
      for (const tool of tools) await run('call', tool.name, '--json', '--args', JSON.stringify({ region: 'us-west1' }));
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
  });
}

/**
 * The OAuth scenarios: the server URL added with auth: oauth, logged in with BROWSER set to
 * a curl that follows redirects (the suite's authorization endpoint redirects at once), then the server's
 * tools listed and one called. A call refused with AUTH_REQUIRED (a 403 asking for more scope) is
 * answered as the error message says: log in again, then call again. Pre-registered client
 * credentials come from the suite in MCP_CONFORMANCE_CONTEXT.
 */
export function authClient(url, suiteEnv, runnerFor) {
  const context = JSON.parse(suiteEnv.MCP_CONFORMANCE_CONTEXT || '{}');
  // curl, not follow-redirects.mjs: a login starts one, and a Node start that loads fetch cost
  // 0.1-0.15 CPU-s here against a few milliseconds (-q: no ~/.curlrc; no proxy for loopback).
  const browser = { BROWSER: "curl -q -s -L -o /dev/null --noproxy '*'" };
  return withScratch('mcpkit-conformance-auth-', suiteEnv, browser, runnerFor, async ({ run, mcpkit, must }) => {
    const client = [
      ...(context.client_id ? ['--client-id', context.client_id] : []),
      // The suite hands the client its pre-registered secret: stored as given, on purpose (server add
      // refuses a literal secret unless told).
      ...(context.client_secret ? ['--client-secret', context.client_secret, '--literal-secrets'] : []),
      // The suite's authorization servers accept this URL as a client ID metadata document.
      ...(suiteEnv.MCP_CONFORMANCE_SCENARIO === 'auth/basic-cimd' ? ['--client-metadata-url', 'https://conformance-test.local/client-metadata.json'] : []),
    ];
    await mcpkit('server', 'add', 'conf', '--url', url, '--auth', 'oauth', ...client);
    await mcpkit('server', 'login', 'conf');
    await mcpkit('server', 'test', 'conf');
    let call = await run('call', 'test-tool', '--json');
    if (call.status !== 0 && /AUTH_REQUIRED/.test(call.stdout + call.stderr)) {
      await mcpkit('server', 'login', 'conf');
      call = await run('call', 'test-tool', '--json');
    }
    must(call);
  });
}
