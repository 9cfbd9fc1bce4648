import { Args } from '@oclif/core';
import { McpkitCommand } from '../../cli/base-command.js';
import { askDaemon, taskLine, type TaskView } from '../../cli/task-commands.js';

export default class TasksCancel extends McpkitCommand {
  static override summary = 'Stop a task of "mcpkit call --task" (its server is told the call is cancelled); one that ended stays as it ended.';
  static override examples = ['<%= config.bin %> tasks cancel 6f1c…'];
  static override args = { id: Args.string({ description: 'The task id "call --task" printed.', required: true }) };

  async run(): Promise<TaskView> {
    const { args, flags } = await this.parse(TasksCancel);
    const task = (await askDaemon(this.runtime(flags.config), 'cancel', args.id)) as TaskView;
    if (!this.jsonEnabled()) this.print(taskLine(task));
    return task;
  }
}
