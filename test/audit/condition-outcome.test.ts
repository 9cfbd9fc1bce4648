import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { outcomeOf, type AuditedCall } from '../../src/audit/auditor.js';
import { ServeMetrics } from '../../src/audit/metrics.js';
import { conditionFailed, ConditionSet, firstRefusal } from '../../src/conditions/rules.js';
import { toErrorResult } from '../../src/tool/mcp-shape.js';

/** A call refused by a condition is counted as such in the audit log and /metrics, apart from tool errors. */
const refused = (() => {
  const set = ConditionSet.compile('tool_views.v.conditions', { echo: 'args.message == "ok"' })!;
  const refusal = firstRefusal(set.applying('echo'), { args: { message: 'no' }, tool: 'echo', server: 's', view: 'v', client: '', claims: {} })!;
  return toErrorResult(conditionFailed('echo', refusal));
})();

describe('a call refused by a condition', () => {
  it.each([
    ['refused by a condition', { result: refused }, { outcome: 'refused_by_condition', error_code: 'CONDITION_FAILED' }],
    ['another tool error', { result: toErrorResult(new Error('boom')) }, { outcome: 'tool_error', error_code: 'INTERNAL' }],
    ['a success', { result: { content: [] } }, { outcome: 'ok', error_code: null }],
  ])('%s: its audit outcome', (_what, call, expected) => {
    expect(outcomeOf(call)).toEqual(expected);
  });

  it('is counted apart in /metrics', async () => {
    const metrics = new ServeMetrics({ upstreams: () => [], sessions: () => 0, generation: () => 1 });
    const call = (result: unknown): AuditedCall => ({ method: 'tools/call', name: 'echo', server: 's', view: 'v', started: 0, finished: 1, result });
    metrics.recordAll([call(refused), call(refused), call({ content: [] })]);
    const counter = parsePrometheusTextFormat((await metrics.text()).body).find((f) => f.name === 'mcpkit_tool_calls_total')!;
    const counts = Object.fromEntries(counter.metrics.map((m) => [m.labels!.outcome, Number(m.value)]));
    expect(counts).toEqual({ refused_by_condition: 2, ok: 1 });
  });
});
