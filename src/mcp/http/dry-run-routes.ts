import type { Who } from './client-report.js';

/**
 * The routes `mcpkit clients --who NAME --tool T` tries when no --view names one: those the caller
 * may use, in the order its config gives them ("default" is /mcp), so a client given only a view
 * is tried on that view and not refused on /mcp it never uses. Pure.
 */
export function routesToTry(who: Who, clients: Readonly<Record<string, { views?: readonly string[] }>> | undefined, views: readonly string[]): string[] {
  if (who.kind === 'view-token') return who.views.length ? [...who.views] : ['default'];
  if (who.kind !== 'client') return ['default'];
  const own = clients?.[who.name]?.views;
  // A client without views may use every route: /mcp first, as before, then each view.
  if (own === undefined) return ['default', ...views];
  return own.length ? [...own] : ['default'];
}
