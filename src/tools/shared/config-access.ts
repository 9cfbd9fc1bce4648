import type { Document } from 'yaml';
import type { ToolContext } from '../../tool/context.js';
import type { McpkitConfig } from '../../config/schema.js';

/** Runs one locked, validated, atomic edit of the config this context uses. */
export async function editConfigFile<R>(ctx: ToolContext, mutate: (doc: Document) => R): Promise<{ value: R; changed: boolean; path: string }> {
  const { editConfig } = await import('../../config/edit.js');
  const outcome = await editConfig(ctx.configLocation.path, mutate, { createFolder: ctx.configLocation.source === 'user' });
  if (outcome.changed) await ctx.configWritten?.();
  return outcome;
}

/**
 * A section of the config as written (placeholders intact), secrets masked, with the problems of
 * each entry that was set aside (an unset variable, a bad URL: McpkitConfig.unusable).
 */
export async function writtenSection(
  ctx: ToolContext,
  section: 'mcp_servers' | 'tool_views',
): Promise<{
  entries: Record<string, Record<string, unknown>>;
  problems: (name: string) => readonly string[] | undefined;
  /** The config as loaded (variables resolved), when it loads. */
  config?: McpkitConfig;
}> {
  const [{ inspectConfig }, { maskSecrets }, { configInvalid }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/mask.js'),
    import('../../config/problems.js'),
  ]);
  const loaded = await inspectConfig(ctx.configLocation, ctx.env);
  if (!loaded.raw) throw configInvalid(ctx.configLocation.path, loaded.problems);
  const entries = (loaded.raw[section] ?? {}) as Record<string, Record<string, unknown>>;
  const unusable = loaded.config?.unusable ?? {};
  return {
    entries: maskSecrets(entries, new Set()) as Record<string, Record<string, unknown>>,
    problems: (name) => unusable[`${section}.${name}`],
    ...(loaded.config ? { config: loaded.config } : {}),
  };
}
