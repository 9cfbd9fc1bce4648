import { existsSync } from 'node:fs';
import * as z from 'zod';
import { describeSource } from '../../config/locate.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';

export const configPath = defineTool({
  name: 'config_path',
  group: 'config',
  command: {
    id: 'config path',
    examples: ['<%= config.bin %> config path', 'MCPKIT_CONFIG=./team.yaml <%= config.bin %> config path --json'],
  },
  title: 'Config file location',
  description:
    'Show which config file mcpkit uses and why.\nOrder: --config, then MCPKIT_CONFIG, then ./mcpkit.yaml, then $XDG_CONFIG_HOME/mcpkit/config.yaml (~/.config/mcpkit/config.yaml). A missing file means built-in defaults.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const { path, source } = ctx.configLocation;
    return { path, source, chosen_by: describeSource(source), exists: existsSync(path) };
  },
  // The path alone on stdout, for $(mcpkit config path); why it was chosen on stderr.
  render: (result, ui) => {
    ui.note(ui.color.dim(`chosen by ${result.chosen_by}${result.exists ? '' : '; the file does not exist (built-in defaults apply)'}`));
    return result.path;
  },
});
