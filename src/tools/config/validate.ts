import * as z from 'zod';
import { dirname } from 'node:path';
import { configInvalid, type ConfigProblem } from '../../config/check/problems.js';
import type { ToolContext } from '../../tool/context.js';
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
    'Check the config file: YAML syntax, ${VAR} placeholders whose variable is unset, the schema, and what serve would refuse besides: groups and mcpkit tools no one has, composite steps whose server is not configured, retrieve roots that are missing or unreadable.\nEvery problem is listed as "path: message"; exits 1 when there is any. An unset variable of a registry source is a warning: only that registry cannot be used.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const [{ inspectConfig }, { isWarning }] = await Promise.all([import('../../config/load.js'), import('../../config/check/check.js')]);
    const loaded = await inspectConfig(ctx.configLocation, ctx.env);
    const warnings = loaded.problems.filter(isWarning);
    if (warnings.length < loaded.problems.length) throw configInvalid(ctx.configLocation.path, loaded.problems);
    // What serve would refuse that the schema cannot see: names of groups, tools and servers; roots.
    if (loaded.config) {
      const { crossCheckProblems } = await import('../../config/check/cross-checks.js');
      const known = await ctx.mcpkitNames?.();
      const problems = [...(known ? crossCheckProblems(loaded.config, known) : []), ...(await rootProblems(loaded.config.retrieve?.roots, ctx))];
      if (problems.length) throw configInvalid(ctx.configLocation.path, problems);
    }
    const servers = Object.keys(loaded.config?.mcp_servers ?? {}).length;
    const views = Object.keys(loaded.config?.tool_views ?? {}).length;
    return { path: ctx.configLocation.path, exists: loaded.exists, valid: true, servers, views, warnings };
  },
  render: (result, ui) =>
    result.exists
      ? [
          `${ui.color.green('✓')} ${result.path} is valid (${result.servers} server(s), ${result.views} view(s))`,
          ...result.warnings.map((w) => `${ui.color.yellow('!')} ${w.path}: ${w.message}; only this registry source cannot be used`),
        ].join('\n')
      : `${ui.color.yellow('!')} ${result.path} does not exist; built-in defaults apply`,
});

/** Each configured root that serve would refuse to start with (missing, not a folder, unreadable), as a problem of its own. */
async function rootProblems(
  configured: Parameters<typeof import('../../retrieve/roots.js').rootSpecs>[0]['configured'],
  ctx: ToolContext,
): Promise<ConfigProblem[]> {
  if (!configured) return [];
  const { rootSpecs, validateRoots } = await import('../../retrieve/roots.js');
  const specs = rootSpecs({ configured, configDir: dirname(ctx.configLocation.path), env: {}, cwd: ctx.cwd, implicit: undefined });
  return specs.flatMap((spec) => {
    try {
      validateRoots([spec]);
      return [];
    } catch (error) {
      return [{ path: `retrieve.roots.${spec.name}`, message: (error as Error).message }];
    }
  });
}
