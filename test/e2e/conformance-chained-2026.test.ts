import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outputOf, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { conformanceRequired as required, kit2026 as kit, kit2026Installed as installed, kitRunEnv, throughMcpkit } from '../helpers/conformance-kit.js';
import { serveHttpChild } from '../helpers/serve.js';
import { freePort, writeConfig } from '../helpers/upstreams.js';

/**
 * The 0.2.0 suite, both requirement sets, through mcpkit chained behind mcpkit: suite -> mcpkit B
 * -> mcpkit A -> the kit's reference server on the 2.x SDK, streamable HTTP between them, with
 * serve.max_client_hubs at 2 at both hops. run.sh starts the reference server on a port A already
 * points at (A connects on first use) and B as the proxy under test; every required scenario of
 * both revisions must pass, as it does directly (conformance-2026.test.ts).
 */

const children: PipedChild[] = [];
afterAll(async () => {
  await Promise.allSettled(children.map((c) => stopChild(c)));
});

describe('the MCP conformance suite 0.2 through mcpkit chained behind mcpkit', () => {
  it.runIf(installed || required)(
    'passes every required scenario of 2026-07-28 and 2025-11-25 through two hops',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      const scratch = tempDir('mcpkit-test-chained-2026-');
      const [referencePort, bPort] = [await freePort(), await freePort()];
      // Each hop forwards the suite's roots on purpose (roots: forward): a remote client's are not passed on otherwise.
      const view = (url: string) =>
        writeConfig({ mcp_servers: { ref: { url, roots: 'forward' } }, tool_views: { conf: { servers: ['ref'] } }, serve: { max_client_hubs: 2 } });
      const a = await serveHttpChild(view(`http://127.0.0.1:${referencePort}/mcp`));
      children.push(a.child);
      const bConfig = view(`${a.url}/view/conf/mcp`);
      const output = await outputOf(
        'bash',
        [join(kit, 'run.sh'), '--port', String(referencePort), '--output-dir', join(scratch, 'chained'), ...throughMcpkit(bPort, bConfig)],
        { cwd: scratch, env: { ...process.env, TMPDIR: scratch, ...kitRunEnv() } },
      );
      const counts = Object.fromEntries(
        [...output.matchAll(/^(2026-07-28|2025-11-25): (\d+) passed, (\d+) failed$/gm)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]),
      );
      expect(counts['2026-07-28']?.[0], output.slice(-3000)).toBeDefined();
      expect(counts['2025-11-25']?.[0], output.slice(-3000)).toBeDefined();
      // A scenario that failed is run once more, alone, through a fresh B: the suite reads some
      // answers within fixed windows (a listen stream's two frames in 800 ms, a logging call's in
      // 500), which two hops on a machine at a load of 14 or more have missed (measured: 2 runs
      // of 4 of server-stateless). A failure the proxy causes fails again; the first output is shown.
      for (const [revision, failed] of failedScenarios(output)) {
        for (const scenario of failed) {
          const again = await outputOf(
            'bash',
            [
              join(kit, 'run.sh'),
              '--port',
              String(referencePort),
              '--requirements',
              revision,
              '--scenario',
              scenario,
              '--output-dir',
              join(scratch, `again-${revision}-${scenario}`),
              ...throughMcpkit(await freePort(), bConfig),
            ],
            { cwd: scratch, env: { ...process.env, TMPDIR: scratch, ...kitRunEnv() } },
          );
          expect(again, `${revision} ${scenario} failed twice through two hops; the first run:\n${output.slice(-3000)}`).toMatch(/: 1 passed, 0 failed$/m);
          counts[revision] = [counts[revision]![0]! + 1, counts[revision]![1]! - 1];
        }
      }
      expect(counts['2026-07-28']).toEqual([expect.any(Number), 0]);
      expect(counts['2025-11-25']).toEqual([expect.any(Number), 0]);
      expect(counts['2026-07-28']![0]).toBeGreaterThanOrEqual(37);
      expect(counts['2025-11-25']![0]).toBeGreaterThanOrEqual(30);
    },
    300_000,
  );
});

/** The scenarios run.sh names as failed, by revision ("<rev>: N passed, N failed" then "  failed: a b"). */
function failedScenarios(output: string): [string, string[]][] {
  return [...output.matchAll(/^(2026-07-28|2025-11-25): \d+ passed, [1-9]\d* failed\n\s+failed: (.+)$/gm)].map((m) => [m[1]!, m[2]!.trim().split(/\s+/)]);
}
