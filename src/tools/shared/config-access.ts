import type { Document } from 'yaml';
import type { ToolContext } from '../../tool/context.js';
import type { McpkitConfig } from '../../config/schema/schema.js';

/**
 * Runs one locked, validated, atomic edit of the config this context uses. A server the edit puts
 * in place or takes out (config/edits/servers-edit.ts serversLosingTrust) loses its pins before the
 * config is written, so no reader ever sees the new entry with the old approvals: a server
 * swapped in under an approved name (force) has its tools withheld until approved again.
 */
export async function editConfigFile<R>(
  ctx: ToolContext,
  mutate: (doc: Document) => R,
): Promise<{ value: R; changed: boolean; path: string; pinsDropped: Record<string, number> }> {
  const [{ editConfig }, { serversLosingTrust }, { dropServerPins, pinFilePath }] = await Promise.all([
    import('../../config/edit.js'),
    import('../../config/edits/servers-edit.js'),
    import('../../config/files/pin-file.js'),
  ]);
  let pinsDropped: Record<string, number> = {};
  const beforeWrite = async (doc: Document) => {
    const names = serversLosingTrust(doc);
    if (names.size) pinsDropped = await dropServerPins(pinFilePath(ctx.configLocation.path), names);
  };
  const outcome = await editConfig(ctx.configLocation.path, mutate, { createFolder: ctx.configLocation.source === 'user', beforeWrite, env: ctx.env });
  if (outcome.changed) await ctx.configWritten?.();
  return { ...outcome, pinsDropped };
}

/**
 * The config as written (placeholders intact), secrets masked, with what was set aside (an unset
 * variable, a bad URL: McpkitConfig.unusable) and the config as loaded, when it loads. A file that
 * does not parse is CONFIG_INVALID.
 */
export async function writtenConfig(ctx: ToolContext): Promise<{
  raw: Record<string, unknown>;
  unusable: NonNullable<McpkitConfig['unusable']>;
  config?: McpkitConfig;
}> {
  const [{ inspectConfig }, { maskSecrets }, { configInvalid }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/secrets/mask.js'),
    import('../../config/check/problems.js'),
  ]);
  const loaded = await inspectConfig(ctx.configLocation, ctx.env);
  if (!loaded.raw) throw configInvalid(ctx.configLocation.path, loaded.problems);
  return {
    raw: maskSecrets(loaded.raw, new Set()) as Record<string, unknown>,
    unusable: loaded.config?.unusable ?? {},
    ...(loaded.config ? { config: loaded.config } : {}),
  };
}

/** A section of the config as written (writtenConfig), with the problems of each entry that was set aside. */
export async function writtenSection(
  ctx: ToolContext,
  section: 'mcp_servers' | 'tool_views' | 'composite_tools',
): Promise<{
  entries: Record<string, Record<string, unknown>>;
  problems: (name: string) => readonly string[] | undefined;
  /** The config as loaded (variables resolved), when it loads. */
  config?: McpkitConfig;
}> {
  const { raw, unusable, config } = await writtenConfig(ctx);
  return {
    entries: (raw[section] ?? {}) as Record<string, Record<string, unknown>>,
    problems: (name) => unusable[`${section}.${name}`],
    ...(config ? { config } : {}),
  };
}
