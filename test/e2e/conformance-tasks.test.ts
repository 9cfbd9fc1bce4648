import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, tempDir } from '../helpers/cli.js';
import {
  conformanceRequired as required,
  kit2026Installed as installed,
  kit2026,
  kit2026Node,
  kit2026Suite,
  scenarioResults,
  TASK_SCENARIOS,
} from '../helpers/conformance-kit.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { FIXTURES, writeConfig } from '../helpers/upstreams.js';

/**
 * The suite's tasks-* scenarios (io.modelcontextprotocol/tasks, SEP-2663) through mcpkit as the
 * task host: the upstream is test/fixtures/tasks-server.mjs, the fixtures the scenarios name as
 * plain tools that know nothing of tasks. They are extension scenarios, off the spec timeline:
 * the suite runs them among its pending ones. tasks-status-notifications checks nothing of a server that
 * sends no notifications/tasks (they are optional; mcpkit sends none yet). serve runs in this
 * process (helpers/in-process.ts: `serve --http`'s code): the suite asks its answers, over HTTP.
 */
let served: InProcessServe | undefined;
beforeAll(async () => {
  if (!(installed || required)) return;
  const config = writeConfig({
    mcp_servers: { tasks: FIXTURES.tasks },
    tool_views: { conf: { servers: ['tasks'] } },
    // failing_job is declared "task support: required" by the scenarios: mcpkit's way to say so.
    // greet is the scenarios' quick tool: quick is before 5 s, not the default 500 ms, on two
    // cores that run ten scenarios and the rest of the suite at once.
    serve: { groups: ['config'], tasks: { required: ['failing_job'], tools: { greet: 5000 } } },
  });
  served = await serveHttpAsCli(config);
  // after_ms counts from a call's arrival, so the view's first call waits for its server to start:
  // the scenarios are about the protocol, so the server is started first, as a running gateway's is.
  const listed = await fetch(`${served.url}/view/conf/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  expect(await listed.text()).toContain('greet');
});
afterAll(async () => {
  await served?.close();
});

describe('the conformance suite tasks-* scenarios through mcpkit, the task host', () => {
  it.runIf(installed || required)(
    'passes every check of the ten tasks-* scenarios',
    async () => {
      expect(installed, `the conformance kit is not installed at ${kit2026}: run (cd ${kit2026} && npm ci)`).toBe(true);
      const scratch = tempDir('mcpkit-tasks-conformance-');
      // One suite process for the ten: the suite's pending server scenarios, the ten and seven
      // others (JSON Schema, SSE polling, HTTP headers, skills: this view of the tasks fixtures is
      // not asked to pass those), one after another, each at its own wire (an extension's is
      // 2026-07-28), as the 2026-07-28 requirement set ran them beside its 37 required scenarios.
      const output = await outputOf(
        kit2026Node,
        [kit2026Suite, 'server', '--url', `${served!.url}/view/conf/mcp`, '--suite', 'pending', '-o', join(scratch, 'out')],
        { cwd: scratch, env: { ...process.env, TMPDIR: scratch } },
      );
      const summary = scenarioResults(output);
      const results = TASK_SCENARIOS.map((scenario) => {
        const [passed, failed] = summary.get(scenario) ?? [-1, -1];
        return { scenario, passed, of: passed + failed, failed };
      });
      const outputs = TASK_SCENARIOS.map((scenario) => output.slice(Math.max(0, output.indexOf(`=== Running scenario: ${scenario} ===`))).slice(0, 6000));
      for (const [i, r] of results.entries()) expect(r.failed, `${r.scenario}:\n${outputs[i]}`).toBe(0);
      // Every scenario but the optional notifications one checks something, and all of it passes.
      const checked = results.filter((r) => r.scenario !== 'tasks-status-notifications');
      expect(
        checked.every((r) => r.of > 0 && r.passed === r.of),
        JSON.stringify(results),
      ).toBe(true);
      expect(checked.reduce((sum, r) => sum + r.passed, 0)).toBeGreaterThanOrEqual(44);
    },
    600_000,
  );
});
