import type { Tool } from '@modelcontextprotocol/server';

/**
 * What a view's tools/list holds. `direct` lists the catalog; `search` lists the search
 * meta-tools plus the pinned tools; `code` the code-mode meta-tools (search and describe answering
 * with TypeScript declarations, and run_code) plus the pinned tools; `auto` lists the catalog
 * while it fits the token budget, and otherwise the meta-tools plus the pinned tools plus as many
 * of the featured tools (the ones agents use most) as still fit. Every tool stays reachable
 * through the meta-tools. Pure.
 */
export type { Exposure } from '../../config/schema/defaults.js';
import type { Exposure } from '../../config/schema/defaults.js';

export interface ExposureOptions {
  exposure: Exposure;
  /** Most tokens (bytes/4) tools/list may cost under auto. */
  budget: number;
  /** Listed directly whatever the exposure (a view's `pin`), in this order. */
  pins: readonly string[];
  /** Kept direct under auto while they fit, most wanted first. */
  featured: readonly string[];
  /** The meta-tools for this catalog (their description names what is behind them). */
  meta: (catalog: readonly Tool[]) => Tool[];
}

export interface ExposurePlan {
  mode: 'direct' | 'search' | 'code';
  listed: Tool[];
  /** Names listed besides the meta-tools. */
  direct: string[];
  listTokens: number;
  catalogTokens: number;
  /** Pins that name no tool of the catalog (a typo, or the name before the view's prefixing). */
  unknownPins: string[];
}

/** What a tools/list result with these tools costs an agent, as bytes/4 of its JSON. */
export function listTokens(tools: readonly Tool[]): number {
  return Math.ceil(Buffer.byteLength(JSON.stringify({ tools })) / 4);
}

export function planExposure(catalog: readonly Tool[], options: ExposureOptions): ExposurePlan {
  const catalogTokens = listTokens(catalog);
  if (options.exposure === 'direct' || (options.exposure === 'auto' && catalogTokens <= options.budget)) {
    return {
      mode: 'direct',
      listed: [...catalog],
      direct: catalog.map((t) => t.name),
      listTokens: catalogTokens,
      catalogTokens,
      unknownPins: unknown(catalog, options.pins),
    };
  }
  const meta = options.meta(catalog);
  const byName = new Map(catalog.map((t) => [t.name, t]));
  const kept: Tool[] = [];
  const seen = new Set<string>();
  // Bytes of `{"tools":[...]}` are the parts' bytes plus one comma between two of them.
  const bytesOf = (t: Tool) => Buffer.byteLength(JSON.stringify(t)) + 1;
  let bytes = Buffer.byteLength('{"tools":[]}') + meta.reduce((n, t) => n + bytesOf(t), 0);
  const take = (name: string, always: boolean) => {
    const tool = byName.get(name);
    if (!tool || seen.has(name)) return;
    if (!always && Math.ceil((bytes + bytesOf(tool)) / 4) > options.budget) return;
    seen.add(name);
    kept.push(tool);
    bytes += bytesOf(tool);
  };
  for (const name of options.pins) take(name, true);
  if (options.exposure === 'auto') for (const name of options.featured) take(name, false);
  const listed = [...kept, ...meta];
  return {
    mode: options.exposure === 'code' ? 'code' : 'search',
    listed,
    direct: kept.map((t) => t.name),
    listTokens: listTokens(listed),
    catalogTokens,
    unknownPins: unknown(catalog, options.pins),
  };
}

function unknown(catalog: readonly Tool[], pins: readonly string[]): string[] {
  const names = new Set(catalog.map((t) => t.name));
  return pins.filter((p) => !names.has(p));
}
