import * as z from 'zod';
import { maskSecrets } from '../../config/mask.js';
import { configInvalid } from '../../config/problems.js';
import { ToolError } from '../../core/errors.js';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';

export const configShow = defineTool({
  name: 'config_show',
  featured: 11,
  group: 'config',
  command: {
    id: 'config show',
    examples: ['<%= config.bin %> config show', '<%= config.bin %> config show --resolved', '<%= config.bin %> config show --resolved --reveal --json'],
  },
  title: 'Show the config',
  description:
    'Show the config file as written, or --resolved: with ${VAR} expanded and defaults filled in.\nValues taken from the environment and values under secret-looking keys (token, api_key, password, Authorization, ...) are masked unless --reveal is given (terminal only).',
  input: z.strictObject({
    resolved: z.boolean().default(false).describe('Expand ${VAR} placeholders and fill in defaults.'),
    reveal: z.boolean().default(false).describe('Show secret values instead of masking them (refused over MCP).'),
  }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    if (input.reveal && ctx.surface === 'mcp') {
      throw new ToolError('FORBIDDEN', 'reveal is not available over MCP: secrets stay out of agent transcripts.', {
        hint: 'Run "mcpkit config show --reveal" in a terminal instead.',
      });
    }
    const { inspectConfig } = await import('../../config/load.js');
    const loaded = await inspectConfig(ctx.configLocation, ctx.env);
    const { path } = ctx.configLocation;
    // Parts set aside for their problems have stand-ins in the loaded config: not worth showing as resolved.
    if (input.resolved && (!loaded.config || loaded.problems.length)) throw configInvalid(path, loaded.problems);
    if (!input.resolved && !loaded.raw) throw configInvalid(path, loaded.problems);
    const data = input.resolved ? await filledIn(loaded.config!, ctx) : loaded.raw;
    const config = input.reveal ? data : maskSecrets(data, input.resolved ? loaded.fromEnv : new Set());
    // A person reads the file as written, comments included; an agent gets the data alone.
    const text =
      !input.resolved && loaded.text !== undefined && ctx.surface === 'cli'
        ? (await import('../../config/yaml-text.js')).maskedFileText(loaded.text, config)
        : undefined;
    return { path, exists: loaded.exists, resolved: input.resolved, config: config as Record<string, unknown>, ...(text !== undefined ? { text } : {}) };
  },
  render: async (result, ui) => {
    const { toYamlText } = await import('../../config/yaml-text.js');
    const head = result.exists ? `# ${result.path}` : `# ${result.path} (not found: built-in defaults)`;
    return `${ui.color.dim(head)}\n${(result.text ?? toYamlText(result.config)).trimEnd()}`;
  },
});

/** The resolved config with every unset setting shown at the value that applies (config/defaults.ts). */
async function filledIn(config: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const [{ withDefaults, defaultBackupDir }, { defaultSourceName }, { homedir }] = await Promise.all([
    import('../../config/defaults.js'),
    import('../../registry/sources.js'),
    import('node:os'),
  ]);
  const registry = (config.registry ?? {}) as { default?: string };
  return withDefaults(config, { registryDefault: defaultSourceName(registry, ctx.env), backupDir: defaultBackupDir(ctx.env, homedir()) });
}
