import { randomUUID } from 'node:crypto';
import type { InFlightScope } from '../pipeline/calls-in-flight.js';

/**
 * mcpkit's tasks, in one store: those serve hosts for 2026-07-28 clients
 * (io.modelcontextprotocol/tasks, SEP-2663, ./task-host.ts) and those of `mcpkit call --task`,
 * which the daemon runs (daemon/server/tasks.ts, owner "terminal"). Each belongs to the identity
 * that created it and is invisible to every other, lives for its TTL, and counts against its
 * owner's bounds (tasks, bytes of results kept). In memory: a restart loses them, and a task id of
 * an earlier process is answered `failed`, saying so (`lostTask`). The clock is given; timers are
 * the caller's.
 */

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface HostedTask {
  id: string;
  owner: string;
  /** The tool the task's call runs (its published name). */
  tool?: string;
  createdAt: number;
  updatedAt: number;
  ttlMs: number;
  status: TaskStatus;
  statusMessage?: string;
  /** completed: the tool's result; failed: the JSON-RPC error. */
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
  /** input_required: the requests still unanswered, by key; and the answers given so far. */
  inputRequests?: Record<string, unknown>;
  answers: Record<string, unknown>;
  /** What the server sent with its input_required (SEP-2322), sent back with the answers. */
  requestState?: unknown;
  /**
   * The tools/call as the client sent it, while a round after input_required may send it again:
   * counted in `bytes`, and dropped once the task has ended. Without its arguments when they were
   * more than the owner's bytes could hold (`argumentsDropped`): such a task cannot take a second round.
   */
  params?: Record<string, unknown>;
  argumentsDropped?: boolean;
  /** Stops the call (tasks/cancel). */
  abort: AbortController;
  /** The request headers a later round is sent with (never the credential). */
  headers?: Record<string, string>;
  /** Where a later round's call is registered, as the first one's was (mcp/pipeline/calls-in-flight.ts). */
  inFlight?: InFlightScope;
  /** Bytes kept: the call's params while it runs, its result or error once it ended. */
  bytes: number;
  /** The last progress the call reported. */
  progress?: { progress: number; total?: number; message?: string };
  /** What another replica's tasks/cancel and tasks/update do to it here (serve.store: TaskSharing). */
  remote?: { cancel(): void; update(inputResponses: Record<string, unknown>): void };
  /** Its place in the order tasks were made (tasks made in one millisecond are still told apart). */
  readonly order: number;
}

export interface TaskBounds {
  maxTtlMs: number;
  maxPerOwner: number;
  maxBytesPerOwner: number;
}

/** How often a client should poll, in ms (a hint: SEP-2663 pollIntervalMs). */
export const POLL_INTERVAL_MS = 500;
const TERMINAL: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.includes(status);
}

export class TaskStore {
  private readonly tasks = new Map<string, HostedTask>();
  private made = 0;
  /** This process' own mark in its task ids: an id without it was made by another process (a restart). */
  readonly boot = randomUUID().slice(0, 8);

  constructor(
    private readonly now: () => number,
    /** serve.replica_id: ids start with it, so a balancer can send tasks/* to the replica that has the task. */
    private readonly replicaId?: string,
    /** How ids are made: by default this process' mark and a UUID (so `lostTask` knows another process' ids). */
    private readonly newId: () => string = () => `${replicaId ? `${replicaId}.` : ''}${this.boot}.${randomUUID()}`,
  ) {}

  /** Told of every change of a task (serve.store: the record the replicas share follows it). */
  changed?: (task: HostedTask) => void;

  /** A new task of `owner`, or undefined when the owner holds as many as it may (the call then runs on, unhosted). */
  create(owner: string, params: Record<string, unknown>, abort: AbortController, bounds: TaskBounds, requestedTtlMs?: number): HostedTask | undefined {
    this.sweep();
    if (this.ownedBy(owner).length >= bounds.maxPerOwner) return undefined;
    const now = this.now();
    const ttlMs = Math.min(bounds.maxTtlMs, requestedTtlMs !== undefined && requestedTtlMs > 0 ? Math.floor(requestedTtlMs) : bounds.maxTtlMs);
    const id = this.newId();
    // The arguments are kept only within the owner's bytes (serve.tasks.max_result_bytes), like a result.
    const size = Buffer.byteLength(JSON.stringify(params));
    const fits = this.bytesOf(owner) + size <= bounds.maxBytesPerOwner;
    const { arguments: _dropped, ...withoutArguments } = params;
    const kept = fits ? params : withoutArguments;
    const bytes = fits ? size : Buffer.byteLength(JSON.stringify(kept));
    const task: HostedTask = {
      id,
      owner,
      ...(typeof params.name === 'string' ? { tool: params.name } : {}),
      order: ++this.made,
      createdAt: now,
      updatedAt: now,
      ttlMs,
      status: 'working',
      answers: {},
      params: kept,
      ...(fits ? {} : { argumentsDropped: true }),
      abort,
      bytes,
    };
    this.tasks.set(id, task);
    return task;
  }

  /** The owner's task of this id; undefined for one that does not exist, has expired, or is another owner's. */
  get(id: string, owner: string): HostedTask | undefined {
    this.sweep();
    const task = this.tasks.get(id);
    return task?.owner === owner ? task : undefined;
  }

  /** Whether an id was made by another mcpkit process (of this replica): its task was lost with that process. */
  lostTask(id: string): boolean {
    const parts = id.split('.');
    const [boot, uuid] = this.replicaId ? (parts[0] === this.replicaId ? parts.slice(1) : []) : parts;
    return parts.length === (this.replicaId ? 3 : 2) && /^[0-9a-f]{8}$/.test(boot ?? '') && boot !== this.boot && /^[0-9a-f-]{36}$/.test(uuid ?? '');
  }

  /** Moves a task on; a terminal task stays as it ended. `kept`: the bytes of what it now holds. */
  update(
    task: HostedTask,
    change: Partial<Pick<HostedTask, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'requestState' | 'progress'>>,
  ): void {
    if (isTerminal(task.status)) return;
    Object.assign(task, change, { updatedAt: Math.max(this.now(), task.updatedAt) });
    if (isTerminal(task.status)) {
      // An ended task keeps its outcome, not what it was asked (the arguments may be large).
      delete task.inputRequests;
      delete task.requestState;
      delete task.params;
      task.answers = {};
      task.bytes = change.result !== undefined || change.error !== undefined ? Buffer.byteLength(JSON.stringify(change.result ?? change.error)) : 0;
    }
    this.changed?.(task);
  }

  /** Bytes of results the owner's tasks keep. */
  bytesOf(owner: string): number {
    return this.ownedBy(owner).reduce((sum, t) => sum + t.bytes, 0);
  }

  /** Tasks of an owner, newest first. */
  ownedBy(owner: string): HostedTask[] {
    return [...this.tasks.values()].filter((t) => t.owner === owner).sort((a, b) => b.order - a.order);
  }

  /** Forgets the owner's oldest ended tasks past the newest `keep` (tasks still running are kept). */
  forgetEnded(owner: string, keep: number): void {
    const owned = this.ownedBy(owner);
    for (const task of owned.slice(keep)) if (isTerminal(task.status)) this.tasks.delete(task.id);
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Drops tasks past their TTL; one still running is stopped. */
  sweep(): void {
    const now = this.now();
    for (const [id, task] of this.tasks) {
      if (now - task.createdAt < task.ttlMs) continue;
      if (!isTerminal(task.status)) task.abort.abort(new Error('the task outlived its ttlMs'));
      this.tasks.delete(id);
    }
  }

  /** Forgets a task at once (one that could not be shared: its call is answered as any call). */
  drop(id: string): void {
    this.tasks.delete(id);
  }

  /** Stops every task (serve is closing). */
  close(): void {
    for (const task of this.tasks.values()) if (!isTerminal(task.status)) task.abort.abort(new Error('serve is closing'));
    this.tasks.clear();
  }
}

/** A task as tasks/get shows it (SEP-2663 DetailedTask), with resultType "complete". Pure. */
export function detailedTask(task: HostedTask): Record<string, unknown> {
  return {
    ...taskEnvelope(task),
    ...(task.status === 'input_required' && task.inputRequests ? { inputRequests: task.inputRequests } : {}),
    ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
    ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
    resultType: 'complete',
  };
}

/** The Task fields of a task (what CreateTaskResult and DetailedTask share). Pure. */
export function taskEnvelope(task: HostedTask): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.updatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}
