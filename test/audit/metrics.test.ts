import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import type { AuditedCall } from '../../src/audit/auditor.js';
import { ServeMetrics } from '../../src/audit/metrics.js';

const sources = { upstreams: () => [], sessions: () => 0, generation: () => 1 };
const call = (
  name: string,
  server: string | undefined,
  outcome: 'ok' | 'tool_error' | 'protocol_error',
  ms: number,
  view?: string,
  who?: { identity: string; named: boolean },
): AuditedCall => ({
  method: 'tools/call',
  name,
  server,
  view,
  ...who,
  started: 0,
  finished: ms,
  ...(outcome === 'protocol_error' ? { error: { code: -32602 } } : { result: { content: [], ...(outcome === 'tool_error' ? { isError: true } : {}) } }),
});

async function read(metrics: ServeMetrics) {
  const text = (await metrics.text()).body;
  const counter = parsePrometheusTextFormat(text).find((f) => f.name === 'mcpkit_tool_calls_total')!;
  const counts = Object.fromEntries(
    counter.metrics.map((m) => [
      `${m.labels!.view} ${m.labels!.server} ${m.labels!.tool}${m.labels!.client === '(anonymous)' ? '' : ` ${m.labels!.client}`} ${m.labels!.outcome}`,
      Number(m.value),
    ]),
  );
  // The parser folds a labelled histogram's series together: they are read from the text.
  const series = (suffix: string) =>
    Object.fromEntries(
      [...text.matchAll(new RegExp(`^mcpkit_tool_call_duration_seconds_${suffix}\\{([^}]*)\\} (\\S+)$`, 'gm'))].map((m) => [
        m[1]!.replace(/,?le="[^"]*"/, ''),
        Number(m[2]),
      ]),
    );
  const key = (view: string, server: string, tool: string) => `view="${view}",server="${server}",tool="${tool}",client="(anonymous)"`;
  const fast = Object.fromEntries(
    [...text.matchAll(/^mcpkit_tool_call_duration_seconds_bucket\{le="0\.005",([^}]*)\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])]),
  );
  const histogram = (view: string, server: string, tool: string) => ({
    count: series('count')[key(view, server, tool)],
    sum: series('sum')[key(view, server, tool)],
    fast: fast[key(view, server, tool)],
  });
  return { counts, histogram };
}

describe('ServeMetrics', () => {
  it.each([
    ['one call at a time', false],
    ['a batch at once (CallQueue)', true],
  ])('counts every call by view, server, tool and outcome, and times each: %s', async (_, batched) => {
    const calls = [
      call('echo', 'everything', 'ok', 2),
      call('echo', 'everything', 'ok', 4),
      call('echo', 'everything', 'tool_error', 30),
      call('echo', 'everything', 'ok', 1, 'one'),
      call('nope', undefined, 'protocol_error', 1),
      call('config_path', 'mcpkit', 'ok', 3),
      call('echo', 'everything', 'ok', 2),
    ];
    const metrics = new ServeMetrics(sources);
    if (batched) {
      metrics.recordAll(calls.slice(0, 4));
      metrics.recordAll(calls.slice(4));
    } else for (const c of calls) metrics.record(c);
    // Not a tools/call: not counted.
    metrics.record({ method: 'prompts/get', name: 'p', server: 'everything', started: 0, finished: 1, result: {} });
    const { counts, histogram } = await read(metrics);
    expect(counts).toEqual({
      '(default) everything echo ok': 3,
      '(default) everything echo tool_error': 1,
      'one everything echo ok': 1,
      '(default) (unknown) (unknown) protocol_error': 1,
      '(default) mcpkit config_path ok': 1,
    });
    expect(histogram('(default)', 'everything', 'echo')).toEqual({ count: 4, sum: 0.038, fast: 3 });
    expect(histogram('one', 'everything', 'echo').count).toBe(1);
  });

  it('labels a call with its client: a configured name, else "(anonymous)", so the labels stay bounded by the config', async () => {
    const metrics = new ServeMetrics(sources);
    metrics.recordAll([
      call('echo', 'everything', 'ok', 1, undefined, { identity: 'alice', named: true }),
      call('echo', 'everything', 'ok', 1, undefined, { identity: 'alice', named: true }),
      call('echo', 'everything', 'ok', 1, undefined, { identity: 'token:0123456789abcdef', named: false }),
      call('echo', 'everything', 'ok', 1, undefined, { identity: 'oauth:someone', named: false }),
      call('echo', 'everything', 'ok', 1),
    ]);
    const { counts } = await read(metrics);
    expect(counts).toEqual({ '(default) everything echo alice ok': 2, '(default) everything echo ok': 3 });
  });
});
