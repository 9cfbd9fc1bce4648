import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputOf, ROOT } from '../helpers/cli.js';
import { conformanceRequired as required, kit2025 as kit, kit2025Installed as installed, scenarioResults } from '../helpers/conformance-kit.js';

/**
 * The official MCP conformance suite's server scenarios, run against its reference server directly
 * and through `mcpkit serve --http` (../shared/conformance/run.sh): every check that passes
 * directly must pass through mcpkit. The kit (the suite needs Node 22, which it brings from npm)
 * lives beside the checkout; .ci/run installs it and sets MCPKIT_CONFORMANCE=required, so in CI a
 * missing kit fails instead of skipping. Elsewhere: (cd ../shared/conformance && npm install).
 */
/** Scenario -> "N passed, M failed", per section of run.sh's output. */
function sections(output: string): { direct: Map<string, [number, number]>; proxied: Map<string, [number, number]> } {
  const [before, after = ''] = output.split('== through mcpkit');
  return { direct: scenarioResults(before!), proxied: scenarioResults(after) };
}

describe('the MCP conformance suite through mcpkit', () => {
  it.runIf(installed || required)(
    'passes through mcpkit every check that passes directly',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      // run.sh keeps its logs in a mktemp folder: ours, removed afterwards.
      const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-test-conformance-'));
      try {
        const output = await outputOf('bash', [join(kit, 'run.sh')], { cwd: ROOT, env: { ...process.env, TMPDIR: scratch } });
        const { direct, proxied } = sections(output);
        expect(direct.size, output).toBeGreaterThan(20);
        const regressions = [...direct]
          .filter(([, [, failed]]) => failed === 0)
          .filter(([name, [passed]]) => proxied.get(name)?.[0] !== passed || proxied.get(name)?.[1] !== 0);
        expect(regressions.map(([name]) => `${name}: direct ${direct.get(name)}, through mcpkit ${proxied.get(name) ?? 'not run'}`)).toEqual([]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

// The OAuth client scenarios, mcpkit as the client, run with the 0.2 suite in both requirement sets
// (conformance-2026.test.ts): its 2025-11-25 set holds every scenario the 0.1 suite had.
