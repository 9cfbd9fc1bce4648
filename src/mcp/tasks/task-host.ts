import type { IncomingHttpHeaders } from 'node:http';
import { classifyInboundRequest, CLIENT_CAPABILITIES_META_KEY, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { ToolAccess } from '../../tool/context.js';
import type { InFlightScope } from '../pipeline/calls-in-flight.js';
import type { CallParams } from '../pipeline/dispatcher.js';
import type { RequestContext } from '../pipeline/request-context.js';
import { detailedTask, isTerminal, taskEnvelope, type HostedTask, type TaskBounds, type TaskStatus, type TaskStore } from './task-store.js';
import type { TaskSharing } from './task-sharing.js';
import { callParamsOf } from '../pipeline/wire-calls.js';
import { forwardable, outcomeOf, roundContext, type Outcome } from '../pipeline/call-round.js';

/**
 * serve as the task host of every tool it serves (io.modelcontextprotocol/tasks, SEP-2663), for
 * 2026-07-28 clients over HTTP that declare the extension on a request: a tools/call still running
 * `afterMs` after it arrived is answered with a task (CreateTaskResult) and runs on; tasks/get,
 * tasks/update and tasks/cancel are answered here, for the caller's own tasks only. The call itself
 * runs in the dispatcher (`run`: rules, limits, hooks and the audit log apply), whether or not the
 * upstream knows tasks. An input_required answer of a call (SEP-2322) parks the task as
 * input_required; tasks/update answers it, and the call is made again with the answers.
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const HEADER_MISMATCH = -32020;
const MISSING_CAPABILITY = -32021;

export interface TaskSettings {
  /** How long a call of this tool (its published name) may run before it becomes a task. */
  afterMsFor(tool: string): number;
  /** Whether the tool runs only as a task: a client without the extension is refused with -32021. */
  requires(tool: string): boolean;
  bounds: TaskBounds;
}

/** An HTTP answer of the host's own. */
export interface HostAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Runs one round of a tools/call in the dispatcher of a caller with this access. */
export type CallRunner = (
  params: CallParams,
  ctx: RequestContext,
  access: ToolAccess,
  inFlight: InFlightScope | undefined,
  headers: Record<string, string>,
) => Promise<Record<string, unknown>>;

type Rpc = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: Record<string, unknown> };

const json = (status: number, payload: unknown): HostAnswer => ({ status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(payload) });
const reply = (id: unknown, result: Record<string, unknown>) => json(200, { jsonrpc: '2.0', id, result });
const refuse = (id: unknown, code: number, message: string, data?: unknown, status = 200) =>
  json(status, { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Whether a request declared the tasks extension in its per-request capabilities. */
export function declaresTasks(params: Record<string, unknown> | undefined): boolean {
  const caps = (params?._meta as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** An Mcp-Name header's value: as written, or its Base64 form (`=?base64?...?=`, SEP-2243) decoded. */
export function mcpNameValue(header: string | undefined): string | undefined {
  const value = header?.trim();
  const encoded = value?.match(/^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/);
  return encoded ? Buffer.from(encoded[1]!, 'base64').toString('utf8') : value;
}

/**
 * Whether the host may take a 2026-07-28 tools/call itself, having checked what the SDK's entry
 * checks before a handler runs: the SDK's own classification (a valid envelope that agrees with
 * the MCP-Protocol-Version header and the Mcp-Method header), the version header present, and the
 * Mcp-Method and Mcp-Name headers present and agreeing with the body. Anything else goes to the
 * SDK, which refuses it in its own words.
 */
export function hostMayTake(body: Rpc, headers: IncomingHttpHeaders): boolean {
  const version = first(headers['mcp-protocol-version']);
  const method = first(headers['mcp-method']);
  const classified = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    mcpMethodHeader: method,
    mcpNameHeader: first(headers['mcp-name']),
    body,
  });
  if (classified.kind !== 'modern' || version === undefined || classified.classification?.revision !== version.trim()) return false;
  return method?.trim() === 'tools/call' && typeof body.params?.name === 'string' && mcpNameValue(first(headers['mcp-name'])) === body.params.name;
}

/** A tools/call result as the SDK's 2026-07-28 codec sends it: its result type, and the server's identity in _meta. */
export function modernCallResult(result: Record<string, unknown>, serverInfo: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  return {
    ...result,
    resultType: result.resultType ?? 'complete',
    ...(meta === undefined || (typeof meta === 'object' && meta[SERVER_INFO_META_KEY] === undefined)
      ? { _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } }
      : {}),
  };
}

/** A call's end as the SDK's 2026-07-28 codec answers it: its result, or its error in-band. */
export function callAnswer(id: unknown, outcome: Outcome, serverInfo: Record<string, unknown>): HostAnswer {
  if ('error' in outcome) {
    // In-band errors are HTTP 200 but for those the SDK's ladder answers with 400 (a header mismatch, a missing capability).
    const { code, message, data } = outcome.error;
    return refuse(id, code, message, data, code === MISSING_CAPABILITY || code === HEADER_MISMATCH ? 400 : 200);
  }
  return reply(id, modernCallResult(outcome.result, serverInfo));
}

export class TaskHost {
  constructor(
    private readonly store: TaskStore,
    private readonly run: CallRunner,
    private readonly settings: () => TaskSettings,
    /** The server's identity, stamped on a result the host answers as the SDK's codec would. */
    private readonly serverInfo: () => Record<string, unknown>,
    /** serve.store: the tasks shared with the other replicas (./task-sharing.ts). */
    private readonly sharing?: TaskSharing,
  ) {}

  /**
   * The answer to a request this host takes: tasks/*, or a tools/call it may make a task of.
   * Undefined: not the host's. `arrived` is when the request came in (performance.now()).
   */
  async handle(
    body: unknown,
    headers: IncomingHttpHeaders,
    access: ToolAccess,
    inFlight?: InFlightScope,
    arrived = performance.now(),
  ): Promise<HostAnswer | undefined> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const rpc = body as Rpc;
    if (rpc.jsonrpc !== '2.0' || rpc.id === undefined || typeof rpc.method !== 'string') return undefined;
    if (rpc.method === 'tools/call') return this.toolCall(rpc, headers, access, inFlight, arrived);
    if (rpc.method !== 'tasks/get' && rpc.method !== 'tasks/update' && rpc.method !== 'tasks/cancel') return undefined;
    return this.taskMethod(rpc, headers, access);
  }

  private async toolCall(
    rpc: Rpc,
    headers: IncomingHttpHeaders,
    access: ToolAccess,
    inFlight: InFlightScope | undefined,
    arrived: number,
  ): Promise<HostAnswer | undefined> {
    const name = typeof rpc.params?.name === 'string' ? rpc.params.name : undefined;
    if (name === undefined) return undefined;
    const settings = this.settings();
    if (!declaresTasks(rpc.params)) {
      if (!settings.requires(name)) return undefined;
      return refuse(
        rpc.id,
        MISSING_CAPABILITY,
        `Tool ${name} runs only as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
        {
          requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
        },
      );
    }
    const params = callParamsOf(rpc.params);
    if (!params || !hostMayTake(rpc, headers)) return undefined;
    const abort = new AbortController();
    const sent = forwardable(headers);
    const running = outcomeOf(this.run(params, roundContext(rpc.id, params, sent, abort.signal, arrived, true), access, inFlight, sent));
    // after_ms counts from the request's arrival: what came before (the view's servers starting) is part of the wait.
    const wait = Math.max(0, arrived + settings.afterMsFor(name) - performance.now());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), wait)));
    const sooner = await Promise.race([running, late]);
    clearTimeout(timer);
    if (sooner !== 'late') return this.answerNow(rpc.id, sooner);
    // Still running: a task of the caller's, unless it holds as many as it may (then the call is awaited as usual).
    const kept = { ...rpc.params } as Record<string, unknown>;
    const task = this.store.create(access.client, kept, abort, settings.bounds, requestedTtl(kept));
    if (!task) return this.answerNow(rpc.id, await running);
    task.headers = sent;
    if (inFlight) task.inFlight = inFlight;
    task.remote = { cancel: () => this.cancel(task), update: (responses) => this.answer(task, responses, `${task.id}.update`, access) };
    // Shared: the record is in the store before the client hears of the task, or there is no task (the call is awaited as usual).
    const shared = await this.sharing?.save(task).then(
      () => true,
      () => false,
    );
    if (shared === false) {
      this.store.drop(task.id);
      return this.answerNow(rpc.id, await running);
    }
    this.follow(task, running, access);
    return reply(rpc.id, { resultType: 'task', ...taskEnvelope(task) });
  }

  /** A call that ended before it became a task, answered as the SDK answers an in-band result or error. */
  private answerNow(id: unknown, outcome: Outcome): HostAnswer {
    return callAnswer(id, outcome, this.serverInfo());
  }

  private async taskMethod(rpc: Rpc, headers: IncomingHttpHeaders, access: ToolAccess): Promise<HostAnswer> {
    const method = rpc.method as string;
    const taskId = rpc.params?.taskId;
    // SEP-2243 and SEP-2663: Mcp-Method names the method, Mcp-Name the task, and both must match the body.
    const methodHeader = first(headers['mcp-method'])?.trim();
    if (methodHeader !== undefined && methodHeader !== method)
      return refuse(rpc.id, HEADER_MISMATCH, `The Mcp-Method header (${methodHeader}) does not match the body's method (${method}).`, undefined, 400);
    const nameHeader = first(headers['mcp-name'])?.trim();
    if (nameHeader === undefined || nameHeader !== taskId)
      return refuse(rpc.id, HEADER_MISMATCH, `${method} needs the Mcp-Name header set to params.taskId.`, { header: 'Mcp-Name', body: taskId ?? null }, 400);
    if (!declaresTasks(rpc.params))
      return refuse(rpc.id, MISSING_CAPABILITY, `${method} is for clients that declare the ${TASKS_EXTENSION} extension.`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    if (typeof taskId !== 'string') return refuse(rpc.id, -32602, `${method} needs params.taskId, a string.`);
    const responses = rpc.params?.inputResponses;
    if (method === 'tasks/update' && (!responses || typeof responses !== 'object' || Array.isArray(responses)))
      return refuse(rpc.id, -32602, 'tasks/update needs params.inputResponses, an object.');
    const task = this.store.get(taskId, access.client);
    if (!task) {
      const elsewhere = this.sharing ? await this.elsewhere(rpc, method, taskId, access, responses as Record<string, unknown>) : undefined;
      if (elsewhere) return elsewhere;
      // With a store, its records say what became of another process' tasks (find fails those of a dead one).
      if (!this.sharing && this.store.lostTask(taskId)) return this.lost(rpc, method, taskId);
      return refuse(rpc.id, -32602, `Unknown task: ${taskId}.`, { taskId });
    }
    if (method === 'tasks/get') return reply(rpc.id, detailedTask(task));
    if (method === 'tasks/cancel') {
      this.cancel(task);
      return reply(rpc.id, { resultType: 'complete' });
    }
    this.answer(task, responses as Record<string, unknown>, rpc.id, access);
    return reply(rpc.id, { resultType: 'complete' });
  }

  private cancel(task: HostedTask): void {
    if (isTerminal(task.status)) return;
    task.abort.abort(new Error('cancelled by the client (tasks/cancel)'));
    this.store.update(task, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
  }

  /**
   * A task another replica holds (serve.store): tasks/get answered from its shared record,
   * tasks/cancel and tasks/update passed to that replica. Undefined: the store has none of the
   * caller's by this id. A store that does not answer is said so, not "unknown task".
   */
  private async elsewhere(
    rpc: Rpc,
    method: string,
    taskId: string,
    access: ToolAccess,
    responses: Record<string, unknown> | undefined,
  ): Promise<HostAnswer | undefined> {
    try {
      const record = await this.sharing!.recordOf(taskId, access.client);
      if (!record) return undefined;
      if (method === 'tasks/get') return reply(rpc.id, record);
      if (!isTerminal(record.status as TaskStatus)) {
        await this.sharing!.tell(
          method === 'tasks/cancel'
            ? { kind: 'cancel', id: taskId, owner: access.client }
            : { kind: 'update', id: taskId, owner: access.client, inputResponses: responses ?? {} },
        );
      }
      return reply(rpc.id, { resultType: 'complete' });
    } catch (error) {
      return refuse(rpc.id, -32603, (error as Error).message, { taskId });
    }
  }

  /** Answers to outstanding requests are kept; once none is left the call is made again with all of them. */
  private answer(task: HostedTask, responses: Record<string, unknown>, id: unknown, access: ToolAccess): void {
    if (task.status !== 'input_required' || !task.inputRequests) return;
    const pending = { ...task.inputRequests };
    for (const [key, value] of Object.entries(responses)) {
      if (!(key in pending)) continue; // never issued, or answered already: ignored (SEP-2663)
      task.answers[key] = value;
      delete pending[key];
    }
    if (Object.keys(pending).length) return this.store.update(task, { inputRequests: pending });
    if (task.argumentsDropped || !task.params) {
      return this.store.update(task, {
        status: 'failed',
        error: {
          code: -32603,
          message: 'The call cannot go on with the answers: its arguments were more than serve.tasks.max_result_bytes lets a task keep. Run the call again.',
        },
      });
    }
    const params = {
      ...task.params,
      inputResponses: task.answers,
      ...(task.requestState !== undefined ? { requestState: task.requestState } : {}),
    } as unknown as CallParams & { inputResponses?: unknown; requestState?: unknown };
    this.store.update(task, { status: 'working', statusMessage: 'Resumed with the answers.' });
    const headers = task.headers ?? {};
    const round = this.run(params, roundContext(id, params, headers, task.abort.signal, undefined, true), access, task.inFlight, headers);
    this.follow(task, outcomeOf(round), access);
  }

  /** Keeps what a round of the task's call ends with. */
  private follow(task: HostedTask, round: Promise<Outcome>, access: ToolAccess): void {
    void round.then((outcome) => this.settle(task, outcome, access));
  }

  /** What the call ended with, kept on its task: a result, an error, or questions for the client. */
  private settle(task: HostedTask, outcome: Outcome, access: ToolAccess): void {
    if (isTerminal(task.status)) return;
    if ('error' in outcome) return this.store.update(task, { status: 'failed', error: outcome.error });
    const { resultType, requestState, inputRequests, ...result } = outcome.result;
    if (resultType === 'input_required' && inputRequests && typeof inputRequests === 'object') {
      task.answers = {};
      return this.store.update(task, { status: 'input_required', inputRequests: inputRequests as Record<string, unknown>, requestState });
    }
    const bytes = Buffer.byteLength(JSON.stringify(result));
    const { maxBytesPerOwner } = this.settings().bounds;
    // What this task kept while it ran (its params) gives way to its result.
    if (this.store.bytesOf(access.client) - task.bytes + bytes > maxBytesPerOwner) {
      return this.store.update(task, {
        status: 'failed',
        error: { code: -32603, message: `The result (${bytes} bytes) is more than serve.tasks.max_result_bytes lets a client keep (${maxBytesPerOwner}).` },
      });
    }
    this.store.update(task, { status: 'completed', result: withoutRelatedTask(result) });
  }

  /** A task of an earlier mcpkit process: lost with it, and said so. */
  private lost(rpc: Rpc, method: string, taskId: string): HostAnswer {
    if (method !== 'tasks/get') return reply(rpc.id, { resultType: 'complete' });
    const now = new Date().toISOString();
    return reply(rpc.id, {
      taskId,
      status: 'failed',
      statusMessage: 'mcpkit serve restarted; the task was lost with it.',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.settings().bounds.maxTtlMs,
      error: { code: -32603, message: 'mcpkit serve restarted while the task ran; its state was kept in memory only. Run the call again.' },
      resultType: 'complete',
    });
  }
}

/** The ttl a client asked for on the call, if any (a v1 `task: { ttl }` hint is tolerated, SEP-2663). */
function requestedTtl(params: Record<string, unknown>): number | undefined {
  const task = params.task as { ttl?: unknown; ttlMs?: unknown } | undefined;
  const ttl = task?.ttlMs ?? task?.ttl;
  return typeof ttl === 'number' ? ttl : undefined;
}

/** SEP-2663: the v1 related-task key is not on an inlined result. */
function withoutRelatedTask(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !('io.modelcontextprotocol/related-task' in meta)) return result;
  const { 'io.modelcontextprotocol/related-task': _related, ...rest } = meta;
  return { ...result, _meta: rest };
}
