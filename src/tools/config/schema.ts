import * as z from 'zod';
import { configSchema } from '../../config/schema/schema.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';

export const configJsonSchema = defineTool({
  name: 'config_schema',
  group: 'config',
  command: {
    id: 'config schema',
    examples: ['<%= config.bin %> config schema > mcpkit.schema.json', "<%= config.bin %> config schema --json | jq '.properties | keys'"],
  },
  title: 'Config JSON Schema',
  description: 'Print the JSON Schema of the config file, for editors with YAML schema support and for CI checks.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run() {
    const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return { ...schema, title: 'mcpkit configuration' };
  },
  render: (result) => JSON.stringify(result, null, 2),
});
