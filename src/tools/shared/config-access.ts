import type { Document } from 'yaml';
import type { ToolContext } from '../../tool/context.js';

/** Runs one locked, validated, atomic edit of the config this context uses. */
export async function editConfigFile<R>(ctx: ToolContext, mutate: (doc: Document) => R): Promise<{ value: R; changed: boolean; path: string }> {
  const { editConfig } = await import('../../config/edit.js');
  return editConfig(ctx.configLocation.path, mutate);
}

/** A section of the config as written (placeholders intact), secrets masked. */
export async function writtenSection(ctx: ToolContext, section: 'mcp_servers' | 'tool_views'): Promise<Record<string, Record<string, unknown>>> {
  const [{ inspectConfig }, { maskSecrets }, { configInvalid }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/mask.js'),
    import('../../config/problems.js'),
  ]);
  const loaded = await inspectConfig(ctx.configLocation, ctx.env);
  if (!loaded.raw) throw configInvalid(ctx.configLocation.path, loaded.problems);
  const entries = (loaded.raw[section] ?? {}) as Record<string, Record<string, unknown>>;
  return maskSecrets(entries, new Set()) as Record<string, Record<string, unknown>>;
}
