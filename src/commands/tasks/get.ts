import { taskActionCommand } from '../../cli/task-commands.js';

export default taskActionCommand(
  'get',
  'Where a task of "mcpkit call --task" stands: working (with its last progress), completed with its result, failed, or cancelled.',
  ['<%= config.bin %> tasks get 6f1c…', '<%= config.bin %> tasks get 6f1c… --json'],
);
