import { errorObject, ToolError } from '../../core/errors.js';
import { randomUUID } from 'node:crypto';

/**
 * The tasks of `mcpkit call --task`, kept by the daemon that runs them: a call started in the
 * background and looked at later (`mcpkit tasks get|wait|cancel|list`). They live as long as the
 * daemon (which stays up while one runs), at most MAX_KEPT of them, newest first; a task's
 * progress is kept as its last report.
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

export class DaemonTasks {
  private readonly tasks = new Map<string, TerminalTask & { abort: AbortController }>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** Starts `run` in the background; `settled` is told when it ends (the daemon may then idle). */
  start(
    tool: string,
    run: (signal: AbortSignal, progress: (p: { progress: number; total?: number; message?: string }) => void) => Promise<unknown>,
    settled: () => void,
  ): TerminalTask {
    const at = this.now().toISOString();
    const task = { task_id: randomUUID(), tool, status: 'working' as TerminalTaskStatus, created_at: at, updated_at: at, abort: new AbortController() };
    this.tasks.set(task.task_id, task);
    this.trim();
    const touch = (change: Partial<TerminalTask>) => {
      if (task.status !== 'working') return;
      Object.assign(task, change, { updated_at: this.now().toISOString() });
    };
    run(task.abort.signal, (progress) => touch({ progress }))
      .then(
        (result) => touch({ status: 'completed', result }),
        // As it is published: an error object crosses the socket, an Error would not.
        (error: unknown) => touch({ status: 'failed', error: errorObject(error) }),
      )
      .finally(settled);
    return view(task);
  }

  get(id: string): TerminalTask | undefined {
    const task = this.tasks.get(id);
    return task ? view(task) : undefined;
  }

  list(): TerminalTask[] {
    return [...this.tasks.values()].reverse().map(view);
  }

  /** Stops a task that still runs; a task that ended stays as it ended. */
  cancel(id: string): TerminalTask | undefined {
    const task = this.tasks.get(id);
    if (!task) return undefined;
    if (task.status === 'working') {
      task.abort.abort(new Error('cancelled (mcpkit tasks cancel)'));
      Object.assign(task, { status: 'cancelled', updated_at: this.now().toISOString() });
    }
    return view(task);
  }

  get running(): number {
    return [...this.tasks.values()].filter((t) => t.status === 'working').length;
  }

  private trim(): void {
    for (const [id, task] of this.tasks) {
      if (this.tasks.size <= MAX_KEPT) return;
      if (task.status !== 'working') this.tasks.delete(id);
    }
  }
}

function view(task: TerminalTask & { abort?: AbortController }): TerminalTask {
  const { abort: _abort, ...rest } = task;
  return { ...rest };
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
