import * as z from 'zod';
import { configInvalid } from '../../config/problems.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';

export const configValidate = defineTool({
  name: 'config_validate',
  group: 'config',
  command: {
    id: 'config validate',
    examples: ['<%= config.bin %> config validate', '<%= config.bin %> config validate --config ./mcpkit.yaml --json'],
  },
  title: 'Validate the config',
  description:
    'Check the config file: YAML syntax, ${VAR} placeholders whose variable is unset, and the schema.\nEvery problem is listed as "path: message"; exits 1 when there is any.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const { inspectConfig } = await import('../../config/load.js');
    const loaded = await inspectConfig(ctx.configLocation, ctx.env);
    if (loaded.problems.length) throw configInvalid(ctx.configLocation.path, loaded.problems);
    const servers = Object.keys(loaded.config?.mcp_servers ?? {}).length;
    const views = Object.keys(loaded.config?.tool_views ?? {}).length;
    return { path: ctx.configLocation.path, exists: loaded.exists, valid: true, servers, views };
  },
  render: (result, ui) =>
    result.exists
      ? `${ui.color.green('✓')} ${result.path} is valid (${result.servers} server(s), ${result.views} view(s))`
      : `${ui.color.yellow('!')} ${result.path} does not exist; built-in defaults apply`,
});
