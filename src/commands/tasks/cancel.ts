import { taskActionCommand } from '../../cli/task-commands.js';

export default taskActionCommand(
  'cancel',
  'Stop a task of "mcpkit call --task" (its server is told the call is cancelled); one that ended stays as it ended.',
  ['<%= config.bin %> tasks cancel 6f1c…'],
);
