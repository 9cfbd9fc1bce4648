import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, spawnTracked, tempDir } from '../helpers/cli.js';
import { startClientHost, type ClientHost } from '../helpers/conformance-clients.js';
import { freePort } from '../helpers/upstreams.js';

/**
 * The conformance clients' forward (test/conformance/forward.sh, what the suite starts per
 * scenario) and the host in the test's process: a forward with the host's token has its client run
 * and gets its status and transcript; one without it is answered nothing. The host listens on
 * loopback TCP, which any local process can reach, so the token is what keeps it from running
 * mcpkit lines for a stranger.
 */
let host: ClientHost | undefined;
beforeAll(async () => {
  host = await startClientHost();
});
afterAll(async () => {
  await host?.close();
});

/** forward.sh as the suite starts it (`sh -c "COMMAND URL"`), with the suite's environment. */
function forward(command: string, url: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTracked('sh', ['-c', `${command} ${url}`], { cwd: tempDir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('the conformance client host and its forward', () => {
  it("runs a forward's client with its scenario's environment, and hands back its status and what it printed", async () => {
    // Nothing listens at the server's port: `server add` passes, `server test` fails, so the client ends 1.
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const env = cleanEnv({ TMPDIR: tempDir(), MCP_CONFORMANCE_SCENARIO: 'initialize', MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-11-25', ...host!.env });
    const { code, stderr } = await forward(host!.command('plain'), url, env);
    expect(stderr).toContain(`$ mcpkit server add conf --url ${url} --protocol 2025-11-25 -> 0`);
    expect(stderr).toMatch(/\$ mcpkit server test conf -> [1-9]/);
    expect(code).toBe(1);
    const runs = host!.runsOf('2025-11-25', 'initialize');
    expect(runs.map((r) => [r.exit, r.delivered])).toEqual([[1, true]]);
    expect(runs[0]!.transcript).toBe(stderr);
  }, 60_000);

  it("hands the host only the variables a client reads, never the rest of the suite's environment", async () => {
    // A CI secret in the suite's environment: a forward must not send it to whatever listens on the port.
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const env = cleanEnv({
      TMPDIR: tempDir(),
      MCP_CONFORMANCE_SCENARIO: 'ping',
      MCP_CONFORMANCE_PROTOCOL_VERSION: '2025-11-25',
      MCP_CONFORMANCE_CONTEXT: '{}',
      CI_DEPLOY_SECRET: 'marker-not-for-the-host',
      MCPKIT_GATEWAY_TOKEN: 'marker-not-for-the-host',
      ...host!.env,
    });
    await forward(host!.command('plain'), url, env);
    const [run] = host!.runsOf('2025-11-25', 'ping');
    expect(run?.received).toEqual(
      expect.arrayContaining(['MCP_CONFORMANCE_SCENARIO', 'MCP_CONFORMANCE_CONTEXT', 'PATH', 'HOME', 'TMPDIR', 'XDG_CONFIG_HOME', 'NO_COLOR']),
    );
    const others = run!.received.filter(
      (name) => !/^(MCP_CONFORMANCE_\w+|PATH|HOME|TMPDIR|XDG_\w+|LANG|LC_\w+|NO_COLOR|MCPKIT_TEST_RUN|MCPKIT_NO_DAEMON|MCPKIT_LOG_LEVEL)$/.test(name),
    );
    expect(others).toEqual([]);
  }, 60_000);

  it('answers nothing to a forward without its token, and runs no client for it', async () => {
    const env = cleanEnv({ MCP_CONFORMANCE_SCENARIO: 'tools_call', MCP_CONFORMANCE_PROTOCOL_VERSION: '2026-07-28', MCPKIT_CLIENT_HOST_TOKEN: 'guessed' });
    const { code, stderr } = await forward(host!.command('plain'), 'http://127.0.0.1:9/mcp', env);
    expect(code).toBe(1);
    expect(stderr).toContain('the client host closed without a status');
    expect(host!.runsOf('2026-07-28', 'tools_call')).toEqual([]);
  });
});
