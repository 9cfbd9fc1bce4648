import type { Document } from 'yaml';
import type { ToolAnnotations, ToolContext } from '../../core/tool.js';

/** Changes the local config file only; never reaches the network. */
export const CONFIG_WRITE: ToolAnnotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/** Runs one locked, validated, atomic edit of the config this context uses. */
export async function editServers<R>(ctx: ToolContext, mutate: (doc: Document) => R): Promise<{ value: R; changed: boolean; path: string }> {
  const { editConfig } = await import('../../config/edit.js');
  return editConfig(ctx.configLocation.path, mutate);
}

/** The `mcp_servers` section as written (placeholders intact), secrets masked. */
export async function writtenServers(ctx: ToolContext): Promise<Record<string, Record<string, unknown>>> {
  const [{ inspectConfig }, { maskSecrets }, { configInvalid }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/mask.js'),
    import('../../config/problems.js'),
  ]);
  const loaded = await inspectConfig(ctx.configLocation, ctx.env);
  if (!loaded.raw) throw configInvalid(ctx.configLocation.path, loaded.problems);
  const servers = (loaded.raw.mcp_servers ?? {}) as Record<string, Record<string, unknown>>;
  return maskSecrets(servers, new Set()) as Record<string, Record<string, unknown>>;
}
