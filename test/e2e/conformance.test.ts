import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, outputOf, spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import {
  conformanceRequired as required,
  kit2025 as kit,
  kit2025Installed as installed,
  kit2025Node as node22,
  kit2025Suite as suite,
  scenarioResults,
} from '../helpers/conformance-kit.js';
import { serveHttpAsCli, serveHttpInProcess } from '../helpers/in-process.js';
import { baselineDrift, directBaselineAsked, runProblems, type KnownRun } from '../helpers/conformance-verdicts.js';
import { freePort, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * The official MCP conformance suite's server scenarios (the 0.1.16 kit, ../shared/conformance:
 * the suite needs Node 22, which it brings from npm) through `mcpkit serve --http` (a one-server
 * view of its reference server, as the kit's run.sh sets it up), then through mcpkit chained behind
 * mcpkit: every scenario must pass through each (conformance-verdicts.ts). The kit is pinned, and
 * its reference server passes every scenario directly: 30 scenarios, 40 checks, KNOWN's counts
 * (measured on 0.1.16). The direct run that was the baseline is made only with
 * MCPKIT_CONFORMANCE_DIRECT=1 (after a kit upgrade: KNOWN must match it exactly). .ci/run installs the kit
 * and sets MCPKIT_CONFORMANCE=required, so in CI a missing kit fails instead of skipping.
 * Elsewhere: (cd ../shared/conformance && npm install). Each mcpkit serves in this process
 * (helpers/in-process.ts: `serve --http`'s code, with an environment of its own): the suite asks
 * its answers over HTTP, not its process (each closed after the file by the suite's hook).
 */
const KNOWN: KnownRun = {
  checks: {
    'server-initialize': 1,
    'logging-set-level': 1,
    ping: 1,
    'completion-complete': 1,
    'tools-list': 1,
    'tools-call-simple-text': 1,
    'tools-call-image': 1,
    'tools-call-audio': 1,
    'tools-call-embedded-resource': 1,
    'tools-call-mixed-content': 1,
    'tools-call-with-logging': 1,
    'tools-call-error': 1,
    'tools-call-with-progress': 1,
    'tools-call-sampling': 1,
    'tools-call-elicitation': 1,
    'elicitation-sep1034-defaults': 5,
    'server-sse-multiple-streams': 2,
    'elicitation-sep1330-enums': 5,
    'resources-list': 1,
    'resources-read-text': 1,
    'resources-read-binary': 1,
    'resources-templates-read': 1,
    'resources-subscribe': 1,
    'resources-unsubscribe': 1,
    'prompts-list': 1,
    'prompts-get-simple': 1,
    'prompts-get-with-args': 1,
    'prompts-get-embedded-resource': 1,
    'prompts-get-with-image': 1,
    'dns-rebinding-protection': 2,
  },
  exempt: {},
};

type Results = Map<string, [number, number]>;

/** The scenarios that pass directly and not as well through mcpkit (with the direct run, on demand). */
function regressionsOf(direct: Results, through: Results): string[] {
  return [...direct]
    .filter(([, [, failed]]) => failed === 0)
    .filter(([name, [passed]]) => through.get(name)?.[0] !== passed || through.get(name)?.[1] !== 0)
    .map(([name]) => `${name}: direct ${direct.get(name)}, through mcpkit ${through.get(name) ?? 'not run'}`);
}

const children: PipedChild[] = [];
let scratch = '';
let referenceUrl = '';
let direct: Results | undefined;
const run = (url: string) => outputOf(node22, [suite, 'server', '--url', url], { cwd: scratch, env: { ...process.env, TMPDIR: scratch } });

/** Every scenario passes through mcpkit (and, with the direct run, passes as well as directly). */
function expectAllPass(output: string): void {
  const through = scenarioResults(output);
  expect(runProblems(through, KNOWN), output.slice(-3000)).toEqual([]);
  if (direct) expect(regressionsOf(direct, through), output.slice(-3000)).toEqual([]);
}

beforeAll(async () => {
  if (!installed) return;
  scratch = tempDir('mcpkit-test-conformance-');
  const port = await freePort();
  const reference = spawnTracked(process.execPath, [join(kit, 'conformance-server.mjs')], {
    env: { ...cleanEnv(), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(reference);
  referenceUrl = `http://127.0.0.1:${port}/mcp`;
  const up = () =>
    fetch(referenceUrl, { method: 'GET' }).then(
      () => true,
      () => false,
    );
  expect(await waitFor(up, 20_000)).toBe(true);
  if (!directBaselineAsked) return;
  const directOutput = await run(referenceUrl);
  direct = scenarioResults(directOutput);
  expect(baselineDrift(direct, KNOWN), directOutput.slice(-3000)).toEqual([]);
}, 300_000);
afterAll(async () => {
  await Promise.allSettled(children.map((c) => stopChild(c)));
});

describe('the MCP conformance suite through mcpkit', () => {
  it.runIf(installed || required)(
    'passes every scenario through mcpkit',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      const served = await serveHttpInProcess(writeConfig({ mcp_servers: { conf: { url: referenceUrl } }, tool_views: { conf: { servers: ['conf'] } } }), {
        exposure: undefined,
        env: cleanEnv(),
      });
      expectAllPass(await run(`${served.url}/view/conf/mcp`));
    },
    300_000,
  );
});

/**
 * Through mcpkit chained behind mcpkit (suite -> mcpkit B -> mcpkit A -> reference server,
 * streamable HTTP between them), with serve.max_client_hubs at 2. The suite opens a session per
 * scenario and never closes one, and every session declares sampling and elicitation, so each gets
 * connections of its own at both hops: past the cap the least recently used sleep
 * (app/own-hubs.ts) instead of the later sessions losing their relaying.
 */
describe('the MCP conformance suite through mcpkit chained behind mcpkit', () => {
  it.runIf(installed || required)(
    'passes every scenario, with every session left open',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      // A cap of 2 so that the suite's sessions pass it many times over at both hops.
      const view = (url: string) =>
        writeConfig({ mcp_servers: { conf: { url, roots: 'forward' } }, tool_views: { conf: { servers: ['conf'] } }, serve: { max_client_hubs: 2 } });
      const a = await serveHttpAsCli(view(referenceUrl));
      const b = await serveHttpAsCli(view(`${a.url}/view/conf/mcp`));
      expectAllPass(await run(`${b.url}/view/conf/mcp`));
    },
    300_000,
  );
});

// The OAuth client scenarios, mcpkit as the client, run with the 0.2 suite in both requirement sets
// (conformance-2026-clients.test.ts): its 2025-11-25 set holds every scenario the 0.1 suite had.
