import type { McpkitConfig } from './schema/schema.js';

/**
 * What a reload keeps of the config it replaces when the new text cannot say who may do what. A
 * part of the config with problems is set aside and stands in with its empty defaults (check.ts);
 * for the serve section and a view that means no token, no OAuth, no view tokens: the next
 * request would be let in everywhere. So a reload whose serve section, or the entry of a view
 * that was in use, cannot be used keeps the last good one of each, and says which. Pure.
 */
export interface KeptAccess {
  config: McpkitConfig;
  /** The units kept from the config before (`serve`, `tool_views.NAME`), with the problems of the new text. */
  kept: Record<string, readonly string[]>;
}

export function keepLastGoodAccess(before: McpkitConfig, next: McpkitConfig): KeptAccess {
  const unusable = next.unusable ?? {};
  const kept: Record<string, readonly string[]> = {};
  let serve = next.serve;
  let views = next.tool_views;
  const stillUnusable: Record<string, readonly string[]> = { ...unusable };
  // The serve section is kept whole: its HTTP settings (tokens, clients, OAuth) and the rest go together.
  const broken = (c: McpkitConfig) => c.unusable?.serve !== undefined || c.unusable?.['serve.http'] !== undefined;
  if (broken(next) && !broken(before)) {
    serve = before.serve;
    kept.serve = [...(unusable.serve ?? []), ...(unusable['serve.http'] ?? [])];
    delete stillUnusable.serve;
    delete stillUnusable['serve.http'];
  }
  for (const [unit, problems] of Object.entries(unusable)) {
    if (!unit.startsWith('tool_views.')) continue;
    const name = unit.slice('tool_views.'.length);
    const last = before.tool_views[name];
    if (!last || before.unusable?.[unit]) continue; // a new view, or one broken already: not served either way
    views = { ...views, [name]: last };
    kept[unit] = problems;
    delete stillUnusable[unit];
  }
  if (Object.keys(kept).length === 0) return { config: next, kept };
  const config: McpkitConfig = { ...next, serve, tool_views: views, unusable: stillUnusable };
  return { config, kept };
}
