import * as z from 'zod';
import { DAEMON_IDLE_MINUTES, DEFAULT_PIN_MODE } from '../../config/schema/defaults.js';
import { maskSecrets } from '../../config/secrets/mask.js';
import { configInvalid } from '../../config/check/problems.js';
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
    if (input.resolved && !loaded.config) throw configInvalid(path, loaded.problems);
    if (!input.resolved && !loaded.raw) throw configInvalid(path, loaded.problems);
    // Parts set aside for their problems (an unset ${VAR}) have stand-ins in the loaded config:
    // they are shown as written, and named, while the rest is shown resolved.
    const setAside = input.resolved ? (loaded.config!.unusable ?? {}) : {};
    const data = input.resolved ? asWritten(await filledIn(loaded.config!, ctx), loaded.raw ?? {}, Object.keys(setAside)) : loaded.raw;
    const config = input.reveal ? data : maskSecrets(data, input.resolved ? loaded.fromEnv : new Set());
    // A person reads the file as written, comments included; an agent gets the data alone.
    const text =
      !input.resolved && loaded.text !== undefined && ctx.surface === 'cli'
        ? (await import('../../config/edits/yaml-text.js')).maskedFileText(loaded.text, config)
        : undefined;
    return {
      path,
      exists: loaded.exists,
      resolved: input.resolved,
      config: config as Record<string, unknown>,
      ...(Object.keys(setAside).length ? { set_aside: setAside } : {}),
      ...(text !== undefined ? { text } : {}),
    };
  },
  render: async (result, ui) => {
    const { toYamlText } = await import('../../config/edits/yaml-text.js');
    const head = result.exists ? `# ${result.path}` : `# ${result.path} (not found: built-in defaults)`;
    const aside = Object.entries(result.set_aside ?? {}).map(([unit, problems]) => `# ${unit}: cannot be used, shown as written (${problems.join('; ')})`);
    return [ui.color.dim(head), ...aside.map((line) => ui.color.yellow(line)), (result.text ?? toYamlText(result.config)).trimEnd()].join('\n');
  },
});

/** The resolved config with every unset setting shown at the value that applies (config/schema/defaults.ts). */
async function filledIn(config: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const [{ withDefaults, defaultBackupDir }, { defaultSourceName }, { homedir }] = await Promise.all([
    import('../../config/schema/defaults.js'),
    import('../../registry/sources.js'),
    import('node:os'),
  ]);
  const registry = (config.registry ?? {}) as { default?: string };
  const filled = withDefaults(config, { registryDefault: defaultSourceName(registry, ctx.env), backupDir: defaultBackupDir(ctx.env, homedir()) });
  return withOtherDefaults(filled);
}

/** The defaults that live outside SETTING_DEFAULTS' sections: pinning and the daemon's. Pure. */
export function withOtherDefaults(config: Record<string, unknown>): Record<string, unknown> {
  return {
    ...config,
    pinning: config.pinning ?? DEFAULT_PIN_MODE,
    daemon: { auto: false, idle_minutes: DAEMON_IDLE_MINUTES, ...((config.daemon ?? {}) as object) },
  };
}

/** `resolved` with each set-aside unit (`mcp_servers.x`, `registry`, `registry.sources.y`) as the file wrote it. Pure. */
export function asWritten(resolved: Record<string, unknown>, raw: Record<string, unknown>, units: readonly string[]): Record<string, unknown> {
  const out = structuredClone(resolved);
  for (const unit of units) {
    const parts = unit.split('.');
    let from: unknown = raw;
    for (const part of parts) from = (from as Record<string, unknown> | undefined)?.[part];
    let into = out;
    for (const part of parts.slice(0, -1)) into = (into[part] ??= {}) as Record<string, unknown>;
    if (from === undefined) delete into[parts.at(-1)!];
    else into[parts.at(-1)!] = structuredClone(from);
  }
  return out;
}
