import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, outputOf, spawnTracked, stopChild, type PipedChild } from '../helpers/cli.js';
import {
  conformanceRequired as required,
  kit2025 as kit,
  kit2025Installed as installed,
  kit2025Node as node22,
  kit2025Suite as suite,
  scenarioResults as summary,
} from '../helpers/conformance-kit.js';
import { serveHttpChild } from '../helpers/serve.js';
import { freePort, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * The conformance suite's server scenarios through mcpkit chained behind mcpkit (suite -> mcpkit B
 * -> mcpkit A -> reference server, streamable HTTP between them), with serve.max_client_hubs at
 * 2. The suite opens a session per scenario and never closes one, and every
 * session declares sampling and elicitation, so each gets connections of its own at both hops:
 * past the cap the least recently used sleep (app/own-hubs.ts) instead of the later sessions
 * losing their relaying. Every scenario that passes directly must pass through the chain.
 */

describe('the MCP conformance suite through mcpkit chained behind mcpkit', () => {
  it.runIf(installed || required)(
    'passes every scenario that passes directly, with every session left open',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit}: run (cd ${kit} && npm ci)`).toBe(true);
      const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-test-chained-'));
      const children: PipedChild[] = [];
      try {
        const port = await freePort();
        const reference = spawnTracked(process.execPath, [join(kit, 'conformance-server.mjs')], {
          env: { ...cleanEnv(), PORT: String(port) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(reference);
        expect(
          await waitFor(
            () =>
              fetch(`http://127.0.0.1:${port}/mcp`, { method: 'GET' }).then(
                () => true,
                () => false,
              ),
            20_000,
          ),
        ).toBe(true);
        // A cap of 2 so that the suite's sessions pass it many times over at both hops.
        const view = (url: string) =>
          writeConfig({ mcp_servers: { conf: { url, roots: 'forward' } }, tool_views: { conf: { servers: ['conf'] } }, serve: { max_client_hubs: 2 } });
        const a = await serveHttpChild(view(`http://127.0.0.1:${port}/mcp`));
        children.push(a.child);
        const b = await serveHttpChild(view(`${a.url}/view/conf/mcp`));
        children.push(b.child);
        const run = (url: string) => outputOf(node22, [suite, 'server', '--url', url], { cwd: scratch, env: { ...process.env, TMPDIR: scratch } });
        const direct = summary(await run(`http://127.0.0.1:${port}/mcp`));
        const chainedOutput = await run(`${b.url}/view/conf/mcp`);
        const chained = summary(chainedOutput);
        expect(direct.size).toBeGreaterThan(20);
        const regressions = [...direct]
          .filter(([, [, failed]]) => failed === 0)
          .filter(([name, [passed]]) => chained.get(name)?.[0] !== passed || chained.get(name)?.[1] !== 0)
          .map(([name]) => `${name}: direct ${direct.get(name)}, chained ${chained.get(name) ?? 'not run'}`);
        expect(regressions, chainedOutput.slice(-3000)).toEqual([]);
      } finally {
        await Promise.allSettled(children.map((c) => stopChild(c)));
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
