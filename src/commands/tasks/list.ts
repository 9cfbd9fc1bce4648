import { McpkitCommand } from '../../cli/base-command.js';
import { askDaemon, taskLine, type TaskView } from '../../cli/task-commands.js';

export default class TasksList extends McpkitCommand {
  static override summary = 'The tasks "mcpkit call --task" started in this config\'s daemon, newest first.';
  static override examples = ['<%= config.bin %> tasks list', '<%= config.bin %> tasks list --json'];

  async run(): Promise<{ tasks: TaskView[] }> {
    const { flags } = await this.parse(TasksList);
    const answer = (await askDaemon(this.runtime(flags.config), 'list')) as { tasks: TaskView[] };
    if (!this.jsonEnabled()) this.print(answer.tasks.length ? answer.tasks.map(taskLine).join('\n') : this.color.dim('No tasks.'));
    return answer;
  }
}
