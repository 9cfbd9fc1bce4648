import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outputOf } from '../helpers/cli.js';
import { freePort } from '../helpers/upstreams.js';
import { conformanceRequired as required, kit2026 as kit, kit2026Installed as installed, throughMcpkit } from '../helpers/conformance-kit.js';

/**
 * The official MCP conformance suite 0.2.0 (../shared/conformance-2026/run.sh), both requirement
 * sets (2026-07-28 and 2025-11-25), against its reference server on the 2.x SDK directly and then
 * through `mcpkit serve --http` (a one-server view over it): every required server scenario that
 * passes directly must pass through mcpkit. Its client scenarios, with mcpkit as the client, are in
 * conformance-2026-clients.test.ts: a file of their own, so that the two long runs go side by side.
 */
/**
 * revision -> scenario -> passed, from run.sh's output: the required (scored) scenarios, as run.sh
 * counts them, or (`scored: false`) the others it runs beyond them (extensions, SHOULDs).
 */
function verdicts(output: string, scored = true): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  for (const part of output.split(/^=== conformance /m).slice(1)) {
    const rev = /--(?:requirements|spec-version) (\S+)/.exec(part)?.[1];
    if (!rev) continue;
    const [listing, notScored = ''] = part.split(/^Not scored for/m);
    const unscored = new Set([...notScored.matchAll(/^ {2}[✓✗] (\S+) \(/gm)].map((m) => m[1]!));
    const scenarios = [...listing!.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gm)].filter((m) => unscored.has(m[2]!) !== scored);
    out.set(rev, new Map(scenarios.map((m) => [m[2]!, m[1] === '✓'])));
  }
  return out;
}

/** The scenarios that pass directly and not through mcpkit, as "revision scenario". */
function regressionsOf(direct: Map<string, Map<string, boolean>>, proxied: Map<string, Map<string, boolean>>): string[] {
  return [...direct].flatMap(([rev, scenarios]) =>
    [...scenarios].filter(([name, passed]) => passed && proxied.get(rev)?.get(name) !== true).map(([name]) => `${rev} ${name}`),
  );
}

function runKit(args: string[], scratch: string): Promise<string> {
  return outputOf('bash', [join(kit, 'run.sh'), ...args], { cwd: scratch, env: { ...process.env, TMPDIR: scratch } });
}

describe('the MCP conformance suite 0.2 (2026-07-28 and 2025-11-25) through mcpkit', () => {
  it.runIf(installed || required)(
    'passes through mcpkit every required server scenario that passes directly, in both requirement sets',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-test-conformance-2026-'));
      try {
        const config = join(scratch, 'mcpkit.yaml');
        // The suite, a remote client, answers the reference server's roots/list through mcpkit:
        // forwarding a remote client's roots is the admin's choice (roots: forward).
        writeFileSync(config, 'mcp_servers:\n  ref:\n    url: ${MCP_UPSTREAM_URL}\n    roots: forward\ntool_views:\n  conf:\n    servers: [ref]\n');
        const port = await freePort();
        // Both runs at once: each has its own reference server, and the suite mostly waits.
        const [directOutput, proxiedOutput] = await Promise.all([
          runKit(['--output-dir', join(scratch, 'direct')], scratch),
          runKit(['--output-dir', join(scratch, 'proxied'), ...throughMcpkit(port, config)], scratch),
        ]);
        const direct = verdicts(directOutput);
        const proxied = verdicts(proxiedOutput);
        expect([...direct.keys()].sort(), directOutput).toEqual(['2025-11-25', '2026-07-28']);
        expect(direct.get('2026-07-28')!.size, directOutput).toBeGreaterThanOrEqual(37);
        expect(direct.get('2025-11-25')!.size, directOutput).toBeGreaterThanOrEqual(30);
        expect(regressionsOf(direct, proxied), proxiedOutput.slice(-4000)).toEqual([]);
        // The scenarios beyond the required ones too (SEP-2243's custom-header checks among them):
        // what the reference server passes, it passes through mcpkit.
        const extraDirect = verdicts(directOutput, false);
        expect(
          [...extraDirect.values()].some((scenarios) => scenarios.get('http-custom-header-server-validation')),
          directOutput,
        ).toBe(true);
        expect(regressionsOf(extraDirect, verdicts(proxiedOutput, false)), proxiedOutput.slice(-4000)).toEqual([]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    400_000,
  );
});
