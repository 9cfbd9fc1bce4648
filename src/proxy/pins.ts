import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { stableJson } from '../core/stable-json.js';
import { invisibleIn } from '../core/invisible.js';

export { escapeInvisible, invisibleIn } from '../core/invisible.js';

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
  const t = tool as Tool & { title?: string; outputSchema?: unknown; icons?: unknown; _meta?: unknown };
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
    ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
    ...(t.icons !== undefined ? { icons: t.icons } : {}),
    ...(t._meta !== undefined ? { _meta: t._meta } : {}),
  };
}

/** The fields of a tool that are pinned, and so the only ones mcpkit forwards: what is not pinned does not reach a client. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'icons', '_meta'] as const;

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

/** Why a listed tool is not what was approved: never approved, another definition, or its pin in the lock file does not hold up. */
export type PinDifference = 'new' | 'changed' | 'tampered';

export interface PinVerdict {
  /** What may be served. */
  served: Tool[];
  /** What differs from its pins, why, and whether it is withheld (enforce) or served all the same (warn). */
  differing: { tool: Tool; why: PinDifference; withheld: boolean }[];
  /** True when the server has no pins yet and may be trusted on first use: its tools (even none) are to be pinned now. */
  firstUse: boolean;
}

/**
 * What a server's listing becomes under its pins and mode. No pins at all is first use where it
 * is allowed (`firstUse`: a person started it): everything is served and pinned by the caller,
 * an empty listing too, so tools that appear later are new. Where it is not allowed (a server an
 * agent added, one that appeared while serve runs) no pins means nothing is approved yet. A pin
 * whose readable definition does not match its hash approves nothing (tampered).
 */
export function admitTools(tools: readonly Tool[], pins: ServerPins | undefined, mode: PinMode, firstUse = true): PinVerdict {
  if (mode === 'off') return { served: [...tools], differing: [], firstUse: false };
  if (pins === undefined && firstUse) return { served: [...tools], differing: [], firstUse: true };
  const served: Tool[] = [];
  const differing: PinVerdict['differing'] = [];
  for (const tool of tools) {
    const pinned = pins?.[tool.name];
    const why = !pinned ? 'new' : !pinIntact(pinned) ? 'tampered' : pinned.sha256 !== pinOf(tool).sha256 ? 'changed' : undefined;
    if (why) differing.push({ tool, why, withheld: mode === 'enforce' });
    if (!why || mode === 'warn') served.push(tool);
  }
  return { served, differing, firstUse: false };
}

/**
 * Whether a server with no pins yet may be pinned on first use: only where a person added it.
 * Never a server an agent added (over MCP: server_add, server_import, registry_add mark it
 * `added_by: agent`), which could be the command of a withheld tool under a new name; its tools
 * wait for a person's approval. A server the config file names otherwise was put there by a person
 * (a terminal command or an editor); whoever else can write that file can run any command anyway.
 */
export function mayTrustFirstUse(entry: { added_by?: string } | undefined): boolean {
  return entry !== undefined && entry.added_by !== 'agent';
}

const intact = new WeakMap<object, boolean>();

/**
 * Whether a pin read from the lock file holds up: a definition and a sha256 that is the hash of
 * that definition. Someone who edits the readable text and keeps the hash (so that a review
 * reads benign), or the reverse, breaks it; neither half is trusted then.
 */
export function pinIntact(pin: unknown): boolean {
  if (!pin || typeof pin !== 'object') return false;
  const known = intact.get(pin);
  if (known !== undefined) return known;
  const { sha256, definition } = pin as Partial<PinnedTool>;
  const ok =
    typeof sha256 === 'string' &&
    !!definition &&
    typeof definition === 'object' &&
    typeof definition.name === 'string' &&
    Object.keys(definition).every((k) => (PINNED_FIELDS as readonly string[]).includes(k)) &&
    pinHash(definition) === sha256;
  intact.set(pin, ok);
  return ok;
}

/** A pin that does not hold up: which tool, and which fields of its readable definition were changed (known when the server lists the definition the hash is of). */
export interface TamperedPin {
  tool: string;
  fields: string[];
}

/** The pins of a server that do not hold up, with the fields that differ from the listed definition where the hash is that definition's. Pure. */
export function tamperedPins(pins: ServerPins, listed: readonly Tool[] = []): TamperedPin[] {
  const byName = new Map(listed.map((t) => [t.name, t]));
  const out: TamperedPin[] = [];
  for (const [name, pin] of Object.entries(pins)) {
    if (pinIntact(pin)) continue;
    const live = byName.get(name);
    const definition = (pin as Partial<PinnedTool> | undefined)?.definition as Record<string, unknown> | undefined;
    let fields: string[] = [];
    if (live && definition && typeof definition === 'object' && pinOf(live).sha256 === (pin as Partial<PinnedTool>).sha256) {
      const now = pinOf(live).definition as unknown as Record<string, unknown>;
      fields = [...new Set([...Object.keys(definition), ...Object.keys(now)])].filter((k) => stableJson(definition[k]) !== stableJson(now[k])).sort();
    }
    out.push({ tool: name, fields });
  }
  return out.sort((a, b) => (a.tool < b.tool ? -1 : 1));
}

/**
 * The digest of a listing as a person reviewed it (server diff): the server's name and the hash
 * of every definition listed. `server approve --digest` records a listing only while it still
 * has this digest, so what is approved is what was shown. Pure.
 */
export function reviewDigest(server: string, tools: readonly Tool[]): string {
  const hashes = Object.fromEntries(tools.map((t) => [t.name, pinOf(t).sha256]));
  return createHash('sha256')
    .update(stableJson({ server, tools: hashes }))
    .digest('hex');
}

/** How much of a digest a person gives: 16 hex digits (64 bits) at least, so a listing made to match it cannot be found. */
export const DIGEST_MIN_LENGTH = 16;

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
export function differingMessage(server: string, tool: string, why: PinDifference, mode: PinMode): string {
  const what =
    why === 'new'
      ? `a new tool "${tool}" that was never approved`
      : why === 'changed'
        ? `tool "${tool}" changed since it was approved`
        : `tool "${tool}" whose pin in the lock file does not match its own hash (edited by hand?)`;
  const done = mode === 'enforce' ? 'it is withheld' : 'it is served (pinning: warn)';
  return `server "${server}" has ${what}: ${done}. Review with: mcpkit server diff ${server}; approve with: mcpkit server approve ${server}`;
}
