import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracked, stopChild, tempDir } from '../helpers/cli.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * GET /metrics of serve --http: the counts equal the calls made, read with a kept
 * parser of the text format (and promtool's linter when Debian's prometheus is installed); the
 * route takes the token; and the real Prometheus, where installed, scrapes it. serve runs in this
 * process (helpers/in-process.ts: the same code as `serve --http`, on a port of its own): what is
 * asked is its answers over HTTP, not its process.
 */

const TOKEN = 'metrics-token';
let serve: InProcessServe | undefined;
let url = '';
let port = 0;

beforeAll(async () => {
  const config = writeConfig({ serve: { token: TOKEN, exposure: 'direct' }, mcp_servers: { everything: SERVERS.everything } });
  serve = await serveHttpAsCli(config);
  url = serve.url;
  port = Number(new URL(url).port);
  const client = new Client({ name: 'metrics-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  for (let i = 0; i < 5; i++) await client.callTool({ name: 'everything__echo', arguments: { message: `m${i}` } });
  await client.callTool({ name: 'everything__echo', arguments: { message: 7 } }); // a tool error
  await client.callTool({ name: 'config_path', arguments: {} });
  await expect(client.callTool({ name: 'made_up', arguments: {} })).rejects.toThrow();
  await client.close();
}, 60_000);
afterAll(async () => {
  await serve?.close();
});

const scrape = async (token?: string) => fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('GET /metrics', () => {
  it('takes the same token as the other routes', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('wrong')).status).toBe(401);
    expect((await scrape(TOKEN)).status).toBe(200);
  });

  it('counts the calls made, by view, server, tool and outcome, in the Prometheus text format', async () => {
    const response = await scrape(TOKEN);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const families = parsePrometheusTextFormat(text);
    const family = (name: string) => families.find((f) => f.name === name)!;
    const calls = family('mcpkit_tool_calls_total');
    expect(calls.type).toBe('COUNTER');
    // No serve.clients: every caller counts as "(anonymous)".
    const count = (labels: Record<string, string>) =>
      Number(
        calls.metrics.find(
          (m) =>
            JSON.stringify(m.labels) ===
            JSON.stringify({ view: labels.view, server: labels.server, tool: labels.tool, client: '(anonymous)', outcome: labels.outcome }),
        )?.value ?? 0,
      );
    expect(count({ view: '(default)', server: 'everything', tool: 'everything__echo', outcome: 'ok' })).toBe(5);
    expect(count({ view: '(default)', server: 'everything', tool: 'everything__echo', outcome: 'tool_error' })).toBe(1);
    expect(count({ view: '(default)', server: 'mcpkit', tool: 'config_path', outcome: 'ok' })).toBe(1);
    expect(count({ view: '(default)', server: '(unknown)', tool: '(unknown)', outcome: 'protocol_error' })).toBe(1);
    const total = calls.metrics.reduce((sum, m) => sum + Number(m.value), 0);
    expect(total).toBe(8);
    const histogram = family('mcpkit_tool_call_duration_seconds');
    expect(histogram.type).toBe('HISTOGRAM');
    // The parser folds a labelled histogram's series together: its counts are read from the text.
    const counts = [...text.matchAll(/^mcpkit_tool_call_duration_seconds_count\{[^}]*\} (\d+)$/gm)].map((m) => Number(m[1]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(8);
    expect(family('mcpkit_upstream_up').metrics).toEqual([expect.objectContaining({ labels: { server: 'everything' }, value: '1' })]);
    expect(family('mcpkit_config_generation').metrics[0]!.value).toBe('1');
    expect(family('mcpkit_sessions_open')).toBeDefined();
    expect(family('process_cpu_user_seconds_total')).toBeDefined();
  });

  const promtool = ['/usr/bin/promtool'].find((p) => existsSync(p));
  it.skipIf(!promtool)("parses with promtool check metrics, and mcpkit's own metrics pass its lint (Debian prometheus)", async () => {
    const text = await (await scrape(TOKEN)).text();
    const checked = spawnSync(promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const said = checked.stdout + checked.stderr;
    expect(said).not.toMatch(/error while linting|parse/i);
    // prom-client's process metrics have lint findings of their own (nodejs_active_handles_total is a gauge); ours have none.
    expect(said.split('\n').filter((line) => line.startsWith('mcpkit_'))).toEqual([]);
  });

  const prometheus = ['/usr/bin/prometheus'].find((p) => existsSync(p));
  if (!prometheus) console.log('skipped: the real Prometheus scrape (Debian package "prometheus" is not installed)');
  it.skipIf(!prometheus)(
    'is scraped by the real Prometheus, which reads the counter back through its HTTP API',
    async () => {
      const dir = tempDir();
      const config = join(dir, 'prometheus.yml');
      writeFileSync(
        config,
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: mcpkit',
          '    metrics_path: /metrics',
          '    authorization:',
          `      credentials: ${TOKEN}`,
          '    static_configs:',
          `      - targets: ['127.0.0.1:${port}']`,
          '',
        ].join('\n'),
      );
      const listen = `127.0.0.1:${19_000 + (process.pid % 1000)}`;
      const child = spawnTracked(prometheus!, [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=${listen}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const query = encodeURIComponent('sum(mcpkit_tool_calls_total{tool="everything__echo",outcome="ok"})');
        let value: string | undefined;
        const ok = await waitFor(
          async () => {
            try {
              const body = (await (await fetch(`http://${listen}/api/v1/query?query=${query}`)).json()) as {
                data?: { result?: { value: [number, string] }[] };
              };
              value = body.data?.result?.[0]?.value[1];
              return value !== undefined;
            } catch {
              return false;
            }
          },
          30_000,
          250,
        );
        expect(ok).toBe(true);
        expect(value).toBe('5');
      } finally {
        await stopChild(child);
      }
    },
    60_000,
  );
});
