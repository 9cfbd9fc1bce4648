import { randomUUID } from 'node:crypto';
import { errorObject, ToolError } from '../../core/errors.js';
import { isTerminal, TaskStore, type HostedTask } from '../../mcp/tasks/task-store.js';

/**
 * The tasks of `mcpkit call --task`, kept by the daemon that runs them in mcpkit's one task store
 * (mcp/tasks/task-store.ts, under the owner "terminal"): a call started in the background and looked at
 * later (`mcpkit tasks get|wait|cancel|list`). They live as long as the daemon (which stays up
 * while one runs), at most MAX_KEPT of them once ended, newest first; a task's progress is kept as
 * its last report. What the terminal prints of one is TerminalTask.
 */
export type TerminalTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

export interface TerminalTask {
  task_id: string;
  tool: string;
  status: TerminalTaskStatus;
  created_at: string;
  updated_at: string;
  progress?: { progress: number; total?: number; message?: string };
  result?: unknown;
  error?: unknown;
}

export const MAX_KEPT = 100;
const OWNER = 'terminal';
/** The terminal's tasks are bounded by MAX_KEPT, not by a TTL or bytes: they are the person's own. */
const BOUNDS = { maxTtlMs: Number.MAX_SAFE_INTEGER, maxPerOwner: Number.MAX_SAFE_INTEGER, maxBytesPerOwner: Number.MAX_SAFE_INTEGER };

export class DaemonTasks {
  private readonly store: TaskStore;

  constructor(now: () => Date = () => new Date()) {
    // Plain UUIDs, as the terminal has always shown them (scripts keep them).
    this.store = new TaskStore(() => now().getTime(), undefined, randomUUID);
  }

  /** Starts `run` in the background; `settled` is told when it ends (the daemon may then idle). */
  start(
    tool: string,
    run: (signal: AbortSignal, progress: (p: { progress: number; total?: number; message?: string }) => void) => Promise<unknown>,
    settled: () => void,
  ): TerminalTask {
    const task = this.store.create(OWNER, { name: tool }, new AbortController(), BOUNDS)!;
    this.store.forgetEnded(OWNER, MAX_KEPT);
    run(task.abort.signal, (progress) => this.store.update(task, { progress }))
      .then(
        (result) => this.store.update(task, { status: 'completed', result: result as Record<string, unknown> }),
        // As it is published: an error object crosses the socket, an Error would not.
        (error: unknown) => this.store.update(task, { status: 'failed', error: errorObject(error) as unknown as Record<string, unknown> }),
      )
      .finally(settled);
    return view(task);
  }

  get(id: string): TerminalTask | undefined {
    const task = this.store.get(id, OWNER);
    return task ? view(task) : undefined;
  }

  list(): TerminalTask[] {
    return this.store.ownedBy(OWNER).map(view);
  }

  /** Stops a task that still runs; a task that ended stays as it ended. */
  cancel(id: string): TerminalTask | undefined {
    const task = this.store.get(id, OWNER);
    if (!task) return undefined;
    if (!isTerminal(task.status)) {
      task.abort.abort(new Error('cancelled (mcpkit tasks cancel)'));
      this.store.update(task, { status: 'cancelled' });
    }
    return view(task);
  }

  get running(): number {
    return this.store.ownedBy(OWNER).filter((t) => !isTerminal(t.status)).length;
  }
}

/** A task as the terminal shows it. */
function view(task: HostedTask): TerminalTask {
  return {
    task_id: task.id,
    tool: task.tool ?? '',
    status: task.status as TerminalTaskStatus,
    created_at: new Date(task.createdAt).toISOString(),
    updated_at: new Date(task.updatedAt).toISOString(),
    ...(task.progress ? { progress: task.progress } : {}),
    ...(task.status === 'completed' ? { result: task.result } : {}),
    ...(task.status === 'failed' ? { error: task.error } : {}),
  };
}

/** The answer to a `task` operation: a task (get, cancel), or every task (list). NOT_FOUND for an id it does not hold. */
export function taskAnswer(tasks: DaemonTasks, operation: { action: 'get' | 'cancel' | 'list'; id?: string }): TerminalTask | { tasks: TerminalTask[] } {
  if (operation.action === 'list') return { tasks: tasks.list() };
  const id = operation.id ?? '';
  const task = operation.action === 'cancel' ? tasks.cancel(id) : tasks.get(id);
  if (!task) {
    throw new ToolError('NOT_FOUND', `No task ${id} in this config's daemon.`, {
      hint: 'mcpkit tasks list shows the tasks it holds; they are lost when the daemon stops.',
    });
  }
  return task;
}
