import { Args, Flags } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { askDaemon, type TaskView } from '../../cli/task-commands.js';
import { printUpstreamResult, type UpstreamResult } from '../../cli/upstream-calls.js';
import { terminalProgress } from '../../cli/terminal/progress-bar.js';
import { fromWire } from '../../daemon/client/protocol.js';
import { ToolError } from '../../core/errors.js';

export default class TasksWait extends McpkitCommand {
  static override summary = 'Wait for a task of "mcpkit call --task" to end, then print its result as "mcpkit call" would.';
  static override description = 'Its progress shows on stderr in a terminal. A failed task exits as its call would have; a cancelled one exits 1.';
  static override examples = ['<%= config.bin %> tasks wait 6f1c…', '<%= config.bin %> tasks wait 6f1c… --timeout 600 --json'];
  static override args = { id: Args.string({ description: 'The task id "call --task" printed.', required: true }) };
  static override flags = { timeout: Flags.integer({ description: 'Give up waiting after this many seconds (the task runs on).', min: 1 }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(TasksWait);
    const runtime = this.runtime(flags.config);
    const bar = terminalProgress();
    const deadline = flags.timeout !== undefined ? Date.now() + flags.timeout * 1000 : Infinity;
    let task: TaskView;
    try {
      for (;;) {
        task = (await askDaemon(runtime, 'get', args.id)) as TaskView;
        if (task.status !== 'working') break;
        if (task.progress) bar?.update(task.progress);
        if (Date.now() > deadline) {
          throw new ToolError('TIMEOUT', `Task ${args.id} is still working after ${flags.timeout} s; it runs on.`, {
            hint: `Wait again: mcpkit tasks wait ${args.id}`,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      bar?.done();
    }
    if (task.status === 'failed') throw fromWire({ code: 'UPSTREAM_ERROR', message: 'The task failed.', ...(task.error as object) } as never);
    if (task.status === 'cancelled') throw new ToolError('CONFLICT', `Task ${args.id} was cancelled; it has no result.`);
    printUpstreamResult(task.tool, task.result as UpstreamResult, this.jsonEnabled());
    return task.result;
  }
}
