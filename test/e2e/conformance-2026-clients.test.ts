import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf } from '../helpers/cli.js';
import { checksOf, clientErrorAllowed, scenarioProblems } from '../helpers/conformance-batch.js';
import { startClientHost, type ClientHost } from '../helpers/conformance-clients.js';
import { conformanceRequired as required, kit2026 as kit, kit2026Installed as installed, kit2026Node, kit2026Suite } from '../helpers/conformance-kit.js';
import { suiteEntry } from '../helpers/upstream-bundles.js';

/**
 * The suite's client scenarios with mcpkit as the client, in both requirement sets: OAuth
 * (test/conformance/client-lines.mjs authClient: server add --auth oauth, server login, server
 * test, call) and plain MCP (plainClient: server add, server test, tools, call, and
 * call --elicitation accept-defaults where the server asks for input during the call). The suite
 * runs every scenario of a wire version in one process (runBatch); its client command hands each
 * scenario to this test's process (startClientHost), which runs the client's mcpkit lines with the
 * built CLI and keeps each client's status for the scenario's verdict (conformance-batch.ts).
 */
const AUTH = 'auth';
const PLAIN = 'plain';
const AUTH_BOTH = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
];
const CLIENT_SCENARIOS: [scenario: string, version: string, client: string][] = [
  ...AUTH_BOTH.map((s): [string, string, string] => [s, '2025-11-25', AUTH]),
  ['auth/2025-03-26-oauth-metadata-backcompat', '2025-03-26', AUTH],
  ['auth/2025-03-26-oauth-endpoint-fallback', '2025-03-26', AUTH],
  ['initialize', '2025-11-25', PLAIN],
  ['tools_call', '2025-11-25', PLAIN],
  ['sse-retry', '2025-11-25', PLAIN],
  ['json-schema-2020-12-preservation', '2025-11-25', PLAIN],
  ['elicitation-sep1034-client-defaults', '2025-11-25', PLAIN],
  ...AUTH_BOTH.map((s): [string, string, string] => [s, '2026-07-28', AUTH]),
  ...[
    'auth/resource-mismatch',
    'auth/offline-access-scope',
    'auth/offline-access-not-supported',
    'auth/authorization-server-migration',
    'auth/iss-supported',
    'auth/iss-not-advertised',
    'auth/iss-supported-missing',
    'auth/iss-wrong-issuer',
    'auth/iss-unexpected',
    'auth/iss-normalized',
    'auth/metadata-issuer-mismatch',
  ].map((s): [string, string, string] => [s, '2026-07-28', AUTH]),
  ['tools_call', '2026-07-28', PLAIN],
  ['request-metadata', '2026-07-28', PLAIN],
  ['http-standard-headers', '2026-07-28', PLAIN],
  ['http-custom-headers', '2026-07-28', PLAIN],
  ['http-invalid-tool-headers', '2026-07-28', PLAIN],
  ['json-schema-ref-no-deref', '2026-07-28', PLAIN],
  ['json-schema-2020-12-preservation', '2026-07-28', PLAIN],
  ['sep-2322-client-request-state', '2026-07-28', PLAIN],
];

/** One scenario run alone, as the suite runs it with --scenario: its output ends in OVERALL. */
async function runClientScenario(scenario: string, version: string, host: ClientHost, client: 'plain' | 'auth', scratch: string): Promise<string> {
  const run = () =>
    // A scenario is four to six mcpkit lines in a row; the suite's 30 s default ran out in CI while
    // the two cores also ran the rest of the tests (the clients were cut off mid-run).
    outputOf(
      kit2026Node,
      [kit2026Suite, 'client', '--command', host.command(client), '--scenario', scenario, '--spec-version', version, '--timeout', '120000'],
      { cwd: scratch, env: { ...process.env, TMPDIR: scratch, NO_COLOR: '1', ...host.env } },
    );
  let output = await run();
  // A run that ended with no verdict at all (OVERALL neither passed nor failed: the suite's own
  // harness gave up under load) is run once more; a run with a verdict is never retried.
  if (!/OVERALL: (PASSED|FAILED)/.test(output)) output = await run();
  return output;
}

/**
 * Every scenario of one wire version in one suite process (`--suite all --spec-version V`, which
 * runs them side by side): a Node 22 start per version instead of per scenario. The clients take
 * turns in the host (three at a time), so a scenario's client may wait for its turn: the batch's
 * timeout per scenario is ten minutes, and a client that is cut off still fails its scenario.
 */
function runBatch(version: string, host: ClientHost, scratch: string): Promise<string> {
  const out = join(scratch, `batch-${version}`);
  const args = ['client', '--command', host.command('auto'), '--suite', 'all', '--spec-version', version, '--timeout', '600000', '-o', out];
  return outputOf(kit2026Node, [kit2026Suite, ...args], { cwd: scratch, env: { ...process.env, TMPDIR: scratch, NO_COLOR: '1', ...host.env } });
}

describe("the suite 0.2's client scenarios, mcpkit as the client", () => {
  let scratch = '';
  let host: ClientHost | undefined;
  const batches = new Map<string, Promise<string>>();
  let allowClientError = new Set<string>();
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mcpkit-test-conformance-2026-client-'));
    if (!installed) return;
    // Three clients at a time, as the one-process-per-scenario runs were (vitest's maxConcurrency).
    host = await startClientHost({ concurrency: 3 });
    allowClientError = clientErrorAllowed(readFileSync(suiteEntry(kit), 'utf8'));
    // One version after another, started here so that the order of the tests does not matter:
    // the versions' 19, 2 and 33 scenarios at once would stretch each past what the load allows.
    let previous: Promise<unknown> = Promise.resolve();
    for (const version of new Set(CLIENT_SCENARIOS.map(([, v]) => v))) {
      const batch = previous.then(() => runBatch(version, host!, scratch));
      batches.set(version, batch);
      previous = batch.catch(() => undefined);
    }
  });
  afterAll(async () => {
    await Promise.allSettled(batches.values());
    await host?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 1_800_000);

  it.runIf(!installed && required)('has the conformance kit', () => {
    expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
  });

  it.runIf(installed)('has the suite name the clients that may exit non-zero', () => {
    // Read from the suite's code: an empty set would hold every client to exit 0 and fail the
    // scenarios that are meant to refuse, so it is checked against what 0.2.0 declares.
    expect([...allowClientError].sort()).toEqual(expect.arrayContaining(['auth/iss-wrong-issuer', 'auth/scope-retry-limit', 'http-invalid-tool-headers']));
  });

  // One test per scenario, so that each failure is named; each waits for its version's batch.
  describe
    .runIf(installed)
    .concurrent('in both requirement sets: OAuth (iss, authorization server migration, step-up ...), request metadata, headers, JSON Schema', () => {
      it.for(CLIENT_SCENARIOS)('%s (%s)', { timeout: 1_800_000 }, async ([scenario, version, client], { expect }) => {
        const batchOutput = await batches.get(version)!;
        const evidence = {
          checks: checksOf(join(scratch, `batch-${version}`), scenario),
          runs: host!.runsOf(version, scenario),
          allowClientError: allowClientError.has(scenario),
        };
        const problems = scenarioProblems(evidence);
        if (problems !== null) {
          const said = evidence.runs.map((r) => r.transcript).join('\n');
          expect(
            problems,
            `${JSON.stringify(
              evidence.checks?.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO'),
              null,
              1,
            )}\n${said}`,
          ).toEqual([]);
          return;
        }
        // No verdict in the batch (the suite's harness gave up on it): the scenario alone, as before.
        const output = await runClientScenario(scenario, version, host!, client as 'plain' | 'auth', scratch);
        const lines = output
          .split('\n')
          .filter((l) => /FAILURE|WARNING|SKIPPED: scenario|Error|\$ mcpkit|exited|timed out|❌|OVERALL/.test(l))
          .join('\n');
        expect(output, `${lines}\n(the batch: ${batchOutput.slice(-2000)})`).toMatch(/OVERALL: PASSED/);
      });
    });
});
