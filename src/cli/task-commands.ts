import { Args } from '@oclif/core';
import { ToolError } from '../core/errors.js';
import { McpkitCommand } from './base-command.js';
import type { Runtime } from '../app/runtime.js';

/** What the daemon says of a task (daemon/server/tasks.ts), as the terminal reads it. */
export interface TaskView {
  task_id: string;
  tool: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  created_at: string;
  updated_at: string;
  progress?: { progress: number; total?: number; message?: string };
  result?: unknown;
  error?: { code?: string; message?: string; hint?: string };
}

/** One `task` operation of the config's daemon; a config without a running daemon holds no tasks. */
export async function askDaemon(runtime: Runtime, action: 'get' | 'cancel' | 'list', id?: string): Promise<unknown> {
  const { throughDaemon } = await import('../daemon/client/use.js');
  const answer = await throughDaemon(runtime, { op: 'task', action, ...(id !== undefined ? { id } : {}) });
  if (!answer) {
    throw new ToolError('NOT_FOUND', 'No daemon runs for this config, so it holds no tasks: they live in the daemon that ran them, and end with it.', {
      hint: 'Start one with: mcpkit call TOOL --task',
    });
  }
  return answer.result;
}

/** A task as one line: its id, tool, status and what it last said. */
export function taskLine(task: TaskView): string {
  const progress = task.progress
    ? ` ${task.progress.total ? `${Math.round((100 * task.progress.progress) / task.progress.total)}%` : task.progress.progress}${task.progress.message ? ` ${task.progress.message}` : ''}`
    : '';
  const error = task.status === 'failed' && task.error?.message ? `: ${task.error.message}` : '';
  return `${task.task_id}  ${task.tool}  ${task.status}${progress}${error}`;
}

/** `tasks get ID` and `tasks cancel ID`: one operation on one task, printed as its line (or --json). */
export function taskActionCommand(action: 'get' | 'cancel', summary: string, examples: string[]) {
  return class TaskAction extends McpkitCommand {
    static override summary = summary;
    static override examples = examples;
    static override args = { id: Args.string({ description: 'The task id "call --task" printed.', required: true }) };

    async run(): Promise<TaskView> {
      const { args, flags } = await this.parse(TaskAction);
      const task = (await askDaemon(this.runtime(flags.config), action, args.id)) as TaskView;
      if (!this.jsonEnabled()) this.print(taskLine(task));
      return task;
    }
  };
}
