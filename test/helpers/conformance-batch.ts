import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The verdict of one client scenario of a batched suite run (`conformance client --suite all
 * --spec-version V`: every scenario of a version in one suite process). The batch prints a line per
 * scenario that counts failed checks and warnings only; a single-scenario run's OVERALL also fails
 * a client that timed out, or exited non-zero where the scenario does not allow it. Those two come
 * from the client host (conformance-clients.ts), which ran the client, so that a batched scenario
 * passes on exactly what OVERALL: PASSED asked of it.
 */
export interface ScenarioEvidence {
  /** The scenario's checks.json (null: the suite wrote none, its harness gave up before the end). */
  checks: { status: string }[] | null;
  /** The client's runs the host saw for this scenario and version. */
  runs: { exit?: number; delivered: boolean }[];
  /** The suite lets this scenario's client exit non-zero (it is meant to refuse). */
  allowClientError: boolean;
}

/** What fails the scenario, as the suite's OVERALL would (empty: it passed). Null: no verdict, run it again. */
export function scenarioProblems({ checks, runs, allowClientError }: ScenarioEvidence): string[] | null {
  if (checks === null) return null;
  const failed = checks.filter((c) => c.status === 'FAILURE').length;
  const warnings = checks.filter((c) => c.status === 'WARNING').length;
  const problems: string[] = [];
  if (failed > 0) problems.push(`${failed} failed checks`);
  if (warnings > 0) problems.push(`${warnings} warnings`);
  if (checks.filter((c) => c.status === 'SUCCESS' || c.status === 'FAILURE').length === 0) problems.push('no checks ran');
  if (runs.length !== 1) problems.push(`the client ran ${runs.length} times, not once`);
  const [run] = runs;
  if (run && run.exit === undefined) problems.push('the client did not end');
  else if (run && !run.delivered) problems.push('the client timed out (its status never reached the suite)');
  if (run?.exit !== undefined && run.exit !== 0 && !allowClientError) problems.push(`the client exited with ${run.exit}`);
  return problems;
}

/**
 * The scenarios whose client the suite lets exit non-zero (a scenario class's
 * `this.allowClientError=!0`), read from the suite's own code, so that a kit update that changes
 * the list changes it here. A scenario missed here is held to exit 0: stricter, never weaker.
 */
export function clientErrorAllowed(suiteSource: string): Set<string> {
  return new Set([...suiteSource.matchAll(/this\.name=`([^`]+)`,(?:(?!this\.name=|class )[^;]){0,600}?this\.allowClientError=!0/g)].map((m) => m[1]!));
}

/** The checks.json the suite wrote for `scenario` under `outDir` (it names the folder scenario-TIME), or null. */
export function checksOf(outDir: string, scenario: string): { status: string }[] | null {
  const folder = dirname(join(outDir, scenario));
  const prefix = `${scenario.split('/').at(-1)}-`;
  if (!existsSync(folder)) return null;
  const run = readdirSync(folder).find((name) => name.startsWith(prefix) && /^\d{4}-\d\d-\d\dT/.test(name.slice(prefix.length)));
  const file = run && join(folder, run, 'checks.json');
  return file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { status: string }[]) : null;
}
