import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Runtime } from '../../app/runtime.js';
import { ToolError } from '../../core/errors.js';
import { runBudgetSettingsOf } from '../../code/run-budget.js';
import { runCode } from '../../code/sandbox.js';
import { scriptAnswerOf } from '../../code/tool-value.js';
import type { HubCatalog, ProxyHub } from '../../proxy/hub.js';
import { toCallResult, toErrorResult } from '../../tool/mcp-shape.js';
import type { BegunCall } from './call-chain.js';
import type { CallPort } from './call-port.js';
import { STDIO_IDENTITY } from './call-record.js';
import type { CallParams, RequestContext } from './request-context.js';

type CodeRun = NonNullable<HubCatalog['codeRun']>;

/**
 * A view's run_code call (exposure: code): the script runs in the sandbox (code/sandbox.ts), and
 * each of its tool calls is an ordinary call of the same client, made through `inner` (the
 * dispatcher itself: ./call-port.ts): its rules and read_only, pins, limits, hooks, the audit log (a line per
 * call, `via` the run tool and `parent` the run's request id) and a span under the run's. What an
 * upstream asks during one of them goes to the client as for a direct call, about the run. A run
 * starts only within serve's budget (serve.code.max_runs, max_runs_per_client, max_memory_mb),
 * read per run so a reload applies.
 */
export async function runCodeCall(
  runtime: Runtime,
  hub: ProxyHub,
  code: CodeRun,
  params: CallParams,
  ctx: RequestContext,
  begun: BegunCall,
  inner: CallPort,
): Promise<CallToolResult> {
  const args = params.arguments ?? {};
  if (typeof args.code !== 'string' || !args.code.trim())
    return toErrorResult(new ToolError('INVALID_INPUT', `${code.tool} needs "code": the script to run, as a string.`));
  const asked = typeof args.timeout_ms === 'number' && args.timeout_ms > 0 ? Math.floor(args.timeout_ms) : undefined;
  const limits = { ...code.limits, timeoutMs: Math.min(asked ?? code.limits.timeoutMs, code.limits.timeoutMs) };
  const settings = runBudgetSettingsOf(runtime.configs.live.loaded?.serve.code);
  const admitted = runtime.serving.runBudget().admit(begun.access?.client ?? STDIO_IDENTITY, limits, settings, Date.now());
  if (!admitted.ok) return toErrorResult(admitted.error);
  const parent = { request: ctx.id, via: code.tool };
  try {
    const { tree, publishedFor } = await hub.catalog.codeTools(begun.access);
    const outcome = await runCode(args.code, {
      tools: tree,
      publishedFor,
      limits,
      signal: begun.revocation ? AbortSignal.any([ctx.signal, begun.revocation.signal]) : ctx.signal,
      settings: settingNames(code.settings),
      call: async (name, callArgs, signal) => {
        const span = begun.trace?.child('tools/call', name, 'mcpkit');
        try {
          const answer = await inner.call(
            { name, arguments: callArgs },
            {
              id: ctx.id,
              session: ctx.session,
              signal,
              envelope: ctx.envelope,
              ...(ctx.modern ? { modern: ctx.modern } : {}),
              notify: ctx.notify,
              ...(ctx.elicit ? { elicit: ctx.elicit } : {}),
              parent,
              ...(span ? { traceContext: { traceparent: span.traceparent } } : {}),
            },
          );
          span?.end();
          return scriptAnswerOf(name, answer);
        } catch (error) {
          span?.end((error as Error).message);
          throw error;
        }
      },
    });
    return toCallResult({ result: outcome.result, ...(outcome.logs.length ? { logs: outcome.logs } : {}), calls: outcome.calls });
  } catch (error) {
    return toErrorResult(error);
  } finally {
    admitted.release();
  }
}

/** The settings a run's limits come from, as its errors name them. */
function settingNames(prefix: string) {
  return {
    timeoutMs: `${prefix}.timeout_ms`,
    memoryMb: `${prefix}.memory_mb`,
    maxCalls: `${prefix}.max_calls`,
    maxParallel: `${prefix}.max_parallel`,
    maxOutputBytes: `${prefix}.max_output_bytes`,
  };
}
