import type { IncomingHttpHeaders } from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ToolAccess } from '../tool/context.js';
import type { InFlightScope } from './calls-in-flight.js';
import { detailedTask, isTerminal, taskEnvelope, type HostedTask, type TaskBounds, type TaskStore } from './task-store.js';

/**
 * serve as the task host of every tool it serves (io.modelcontextprotocol/tasks, SEP-2663), for
 * 2026-07-28 clients over HTTP that declare the extension on a request: a tools/call still running
 * after `afterMs` is answered with a task (CreateTaskResult) and runs on; tasks/get, tasks/update
 * and tasks/cancel are answered here, for the caller's own tasks only. The call itself runs the
 * ordinary way (`run`: the route's own handler, so rules, limits, hooks and the audit log apply),
 * whether or not the upstream knows tasks. An input_required answer of a call (SEP-2322) parks the
 * task as input_required; tasks/update answers it, and the call is made again with the answers.
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

/** An HTTP answer: what the route's handler gave, or the host's own JSON. */
export interface HostAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Runs one JSON-RPC request through the route's own handler, to its end. */
export type CallRunner = (
  body: Record<string, unknown>,
  headers: Record<string, string>,
  signal: AbortSignal,
  access: ToolAccess,
  inFlight?: InFlightScope,
) => Promise<HostAnswer>;

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

/** The one JSON-RPC message that answers request `id` in a handler's answer (JSON, or an SSE stream's events). */
export function finalMessage(answer: HostAnswer, id: unknown): { result?: Record<string, unknown>; error?: Record<string, unknown> } | undefined {
  const texts = (answer.headers['content-type'] ?? '').includes('text/event-stream')
    ? answer.text
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [answer.text];
  for (const text of texts.reverse()) {
    try {
      const message = JSON.parse(text) as { id?: unknown; result?: Record<string, unknown>; error?: Record<string, unknown> };
      if (message.id === id && (message.result !== undefined || message.error !== undefined)) return message;
    } catch {
      /* not JSON: not the answer */
    }
  }
  return undefined;
}

export class TaskHost {
  constructor(
    private readonly store: TaskStore,
    private readonly run: CallRunner,
    private readonly settings: () => TaskSettings,
  ) {}

  /** The answer to a request this host takes: tasks/*, or a tools/call it may make a task of. Undefined: not the host's. */
  async handle(body: unknown, headers: IncomingHttpHeaders, access: ToolAccess, inFlight?: InFlightScope): Promise<HostAnswer | undefined> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const rpc = body as Rpc;
    if (rpc.jsonrpc !== '2.0' || rpc.id === undefined || typeof rpc.method !== 'string') return undefined;
    if (rpc.method === 'tools/call') return this.toolCall(rpc, headers, access, inFlight);
    if (rpc.method !== 'tasks/get' && rpc.method !== 'tasks/update' && rpc.method !== 'tasks/cancel') return undefined;
    return this.taskMethod(rpc, headers, access);
  }

  private async toolCall(rpc: Rpc, headers: IncomingHttpHeaders, access: ToolAccess, inFlight?: InFlightScope): Promise<HostAnswer | undefined> {
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
    const afterMs = settings.afterMsFor(name);
    const abort = new AbortController();
    const sent = forwardable(headers);
    const running = this.run(rpc as Record<string, unknown>, sent, abort.signal, access, inFlight);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), afterMs)));
    const sooner = await Promise.race([running, late]);
    clearTimeout(timer);
    if (sooner !== 'late') return sooner;
    // Still running: a task of the caller's, unless it holds as many as it may (then the call is awaited as usual).
    const params = { ...rpc.params } as Record<string, unknown>;
    const task = this.store.create(access.client, params, abort, settings.bounds, requestedTtl(params));
    if (!task) return running;
    task.headers = sent;
    if (inFlight) task.inFlight = inFlight;
    this.follow(task, running, rpc.id, access);
    return reply(rpc.id, { resultType: 'task', ...taskEnvelope(task) });
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
    const task = this.store.get(taskId, access.client);
    if (!task) {
      if (this.store.lostTask(taskId)) return this.lost(rpc, method, taskId);
      return refuse(rpc.id, -32602, `Unknown task: ${taskId}.`, { taskId });
    }
    if (method === 'tasks/get') return reply(rpc.id, detailedTask(task));
    if (method === 'tasks/cancel') {
      if (!isTerminal(task.status)) {
        task.abort.abort(new Error('cancelled by the client (tasks/cancel)'));
        this.store.update(task, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
      }
      return reply(rpc.id, { resultType: 'complete' });
    }
    const responses = rpc.params?.inputResponses;
    if (!responses || typeof responses !== 'object' || Array.isArray(responses))
      return refuse(rpc.id, -32602, 'tasks/update needs params.inputResponses, an object.');
    this.answer(task, responses as Record<string, unknown>, rpc.id, access);
    return reply(rpc.id, { resultType: 'complete' });
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
    const params = { ...task.params, inputResponses: task.answers, ...(task.requestState !== undefined ? { requestState: task.requestState } : {}) };
    this.store.update(task, { status: 'working', statusMessage: 'Resumed with the answers.' });
    const body = { jsonrpc: '2.0', id, method: 'tools/call', params };
    this.follow(task, this.run(body, task.headers ?? {}, task.abort.signal, access, task.inFlight), id, access);
  }

  /** Keeps what a round of the task's call ends with; a round that could not be run fails the task. */
  private follow(task: HostedTask, round: Promise<HostAnswer>, id: unknown, access: ToolAccess): void {
    round.then(
      (answer) => this.settle(task, answer, id, access),
      (error: Error) => this.store.update(task, { status: 'failed', error: { code: -32603, message: error.message } }),
    );
  }

  /** What the call ended with, kept on its task: a result, an error, or questions for the client. */
  private settle(task: HostedTask, answer: HostAnswer, id: unknown, access: ToolAccess): void {
    if (isTerminal(task.status)) return;
    const message = finalMessage(answer, id);
    if (!message) {
      this.store.update(task, { status: 'failed', error: { code: -32603, message: `The call ended without an answer (HTTP ${answer.status}).` } });
      return;
    }
    if (message.error) return this.store.update(task, { status: 'failed', error: message.error });
    const { resultType, requestState, inputRequests, ...result } = message.result!;
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

/** The request headers a call is made again with (never the credential: the host passes the caller's access itself). */
function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'authorization' || name === 'cookie' || name === 'content-length' || name === 'host' || name === 'connection') continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
