import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { askDaemon, taskLine, type TaskView } from '../../cli/task-commands.js';

export default class TasksGet extends McpkitCommand {
  static override summary = 'Where a task of "mcpkit call --task" stands: working (with its last progress), completed with its result, failed, or cancelled.';
  static override examples = ['<%= config.bin %> tasks get 6f1c…', '<%= config.bin %> tasks get 6f1c… --json'];
  static override args = { id: Args.string({ description: 'The task id "call --task" printed.', required: true }) };

  async run(): Promise<TaskView> {
    const { args, flags } = await this.parse(TasksGet);
    const task = (await askDaemon(this.runtime(flags.config), 'get', args.id)) as TaskView;
    if (!this.jsonEnabled()) this.print(taskLine(task));
    return task;
  }
}
