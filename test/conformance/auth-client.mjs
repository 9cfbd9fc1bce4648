#!/usr/bin/env node
// The conformance suite's client for its OAuth scenarios, as a user would drive mcpkit:
//   conformance client --command "node test/conformance/auth-client.mjs" --scenario auth/...
// It adds the server URL (the last argument) to a scratch config with auth: oauth, logs in with
// BROWSER set to follow-redirects.mjs (the suite's authorization endpoint redirects at once),
// then lists the server's tools and calls one. A call refused with AUTH_REQUIRED (a 403 asking
// for more scope) is answered as the error message says: log in again, then call again.
// Pre-registered client credentials come from the suite in MCP_CONFORMANCE_CONTEXT.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mcpkitWith } from './mcpkit-runner.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const url = process.argv.at(-1);
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-auth-'));
const env = {
  ...process.env,
  MCPKIT_CONFIG: join(scratch, 'mcpkit.yaml'),
  XDG_STATE_HOME: join(scratch, 'state'),
  BROWSER: `"${process.execPath}" "${join(here, 'follow-redirects.mjs')}"`,
  NO_COLOR: '1',
};

const mcpkit = mcpkitWith(env);

function must(r) {
  if (r.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    process.exit(1);
  }
  return r;
}

try {
  const client = [
    ...(context.client_id ? ['--client-id', context.client_id] : []),
    // The suite hands the client its pre-registered secret: stored as given, on purpose (server add
    // refuses a literal secret unless told).
    ...(context.client_secret ? ['--client-secret', context.client_secret, '--literal-secrets'] : []),
    // The suite's authorization servers accept this URL as a client ID metadata document.
    ...(process.env.MCP_CONFORMANCE_SCENARIO === 'auth/basic-cimd' ? ['--client-metadata-url', 'https://conformance-test.local/client-metadata.json'] : []),
  ];
  must(await mcpkit('server', 'add', 'conf', '--url', url, '--auth', 'oauth', ...client));
  must(await mcpkit('server', 'login', 'conf'));
  must(await mcpkit('server', 'test', 'conf'));
  let call = await mcpkit('call', 'test-tool', '--json');
  if (call.status !== 0 && /AUTH_REQUIRED/.test(call.stdout + call.stderr)) {
    must(await mcpkit('server', 'login', 'conf'));
    call = await mcpkit('call', 'test-tool', '--json');
  }
  must(call);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
