import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { stableJson } from '../core/stable-json.js';

/**
 * Tool pinning: the approved definition of each upstream tool, and what a listing is compared
 * with. Pure (a hash is computation, not I/O). The lock file itself is ../config/pin-file.ts;
 * what serve does with a verdict is ./view-catalog.ts.
 */

import type { PinMode } from '../config/defaults.js';

export type { PinMode } from '../config/defaults.js';

import type { PinnedDefinition, PinnedTool } from '../config/pin-file.js';

export type { PinnedDefinition, PinnedTool } from '../config/pin-file.js';

/** A server's pins, by the upstream's own tool name. */
export type ServerPins = Record<string, PinnedTool>;

/** The upstream's definition as pinned (mcpkit's renames and description overrides are not part of it). */
export function pinDefinition(tool: Tool): PinnedDefinition {
  const t = tool as Tool & { title?: string; outputSchema?: unknown };
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
  };
}

/** SHA-256 of the canonical JSON (keys sorted) of the pinned definition. */
export function pinHash(definition: PinnedDefinition): string {
  return createHash('sha256').update(stableJson(definition)).digest('hex');
}

/** Pins by tool object: an upstream's cached listing is compared on every catalog rebuild, and hashed once. */
const pinned = new WeakMap<Tool, PinnedTool>();

export function pinOf(tool: Tool): PinnedTool {
  let pin = pinned.get(tool);
  if (!pin) {
    const definition = pinDefinition(tool);
    pinned.set(tool, (pin = { sha256: pinHash(definition), definition }));
  }
  return pin;
}

export interface PinComparison {
  unchanged: string[];
  /** Listed now, never approved. */
  added: string[];
  /** Approved, not listed now. */
  removed: string[];
  /** Listed now with a definition other than the approved one. */
  changed: string[];
}

/** How a server's tools now compare with its pins (names sorted). */
export function comparePins(pins: ServerPins, tools: readonly Tool[]): PinComparison {
  const out: PinComparison = { unchanged: [], added: [], removed: [], changed: [] };
  const listed = new Set<string>();
  for (const tool of tools) {
    listed.add(tool.name);
    const pinned = pins[tool.name];
    if (!pinned) out.added.push(tool.name);
    else if (pinned.sha256 !== pinOf(tool).sha256) out.changed.push(tool.name);
    else out.unchanged.push(tool.name);
  }
  out.removed = Object.keys(pins).filter((name) => !listed.has(name));
  for (const list of Object.values(out)) list.sort();
  return out;
}

export interface PinVerdict {
  /** What may be served. */
  served: Tool[];
  /** What differs from its pins, why, and whether it is withheld (enforce) or served all the same (warn). */
  differing: { tool: Tool; why: 'new' | 'changed'; withheld: boolean }[];
  /** True when the server has no pins yet: its tools are to be pinned now (trust on first use). */
  firstUse: boolean;
}

/** What a server's listing becomes under its pins and mode. No pins at all is first use: everything is served (and pinned by the caller). */
export function admitTools(tools: readonly Tool[], pins: ServerPins | undefined, mode: PinMode): PinVerdict {
  if (mode === 'off') return { served: [...tools], differing: [], firstUse: false };
  if (pins === undefined) return { served: [...tools], differing: [], firstUse: tools.length > 0 };
  const served: Tool[] = [];
  const differing: PinVerdict['differing'] = [];
  for (const tool of tools) {
    const pinned = pins[tool.name];
    const why = !pinned ? 'new' : pinned.sha256 !== pinOf(tool).sha256 ? 'changed' : undefined;
    if (why) differing.push({ tool, why, withheld: mode === 'enforce' });
    if (!why || mode === 'warn') served.push(tool);
  }
  return { served, differing, firstUse: false };
}

/**
 * Characters a person does not see but a model reads: Unicode tag characters (U+E0000-E007F, text
 * hidden in plain sight), bidirectional overrides and isolates, and zero-width characters.
 */
const INVISIBLE = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060-\u2064\uFEFF]/gu;

/** The invisible characters in a text, as U+XXXX, each once. */
export function invisibleIn(text: string): string[] {
  return [...new Set([...text.matchAll(INVISIBLE)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`))];
}

/** The text with each invisible character shown as \u{XXXX}, so a person sees what a model would read. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** Every invisible character anywhere in a definition (its description, a parameter's, a title). */
export function invisibleInDefinition(definition: unknown): string[] {
  return invisibleIn(collectStrings(definition).join('\n'));
}

function collectStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(collectStrings);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...collectStrings(v)]);
  return [];
}

/** What a person (and a client, under warn) is told of a tool that differs from its pins. */
export function differingMessage(server: string, tool: string, why: 'new' | 'changed', mode: PinMode): string {
  const what = why === 'new' ? `a new tool "${tool}" that was never approved` : `tool "${tool}" changed since it was approved`;
  const done = mode === 'enforce' ? 'it is withheld' : 'it is served (pinning: warn)';
  return `server "${server}" has ${what}: ${done}. Review with: mcpkit server diff ${server}; approve with: mcpkit server approve ${server}`;
}
