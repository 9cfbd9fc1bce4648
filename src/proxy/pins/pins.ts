import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { stableJson } from '../../core/stable-json.js';
import { invisibleIn } from '../../core/invisible.js';

export { escapeInvisible, invisibleIn } from '../../core/invisible.js';

/**
 * Tool pinning: the approved definition of each upstream tool, and what a listing is compared
 * with. Pure (a hash is computation, not I/O). The lock file itself is ../config/pin-file.ts;
 * what serve does with a verdict is ../catalog/listing-admission.ts.
 */

import type { PinMode } from '../../config/schema/defaults.js';

export type { PinMode } from '../../config/schema/defaults.js';

import type { PinnedDefinition, PinnedTool } from '../../config/files/pin-file.js';

export type { PinnedDefinition, PinnedTool } from '../../config/files/pin-file.js';

/** A server's pins, by the upstream's own tool name. */
export type ServerPins = Record<string, PinnedTool>;

/** The fields of a tool that are pinned, and so the only ones mcpkit forwards: what is not pinned does not reach a client. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'icons', '_meta'] as const;

/** What is pinned: tools, and what else of a server reaches an agent's context. */
export type PinKind = 'tools' | 'prompts' | 'resources' | 'resource_templates';

/**
 * Each kind: what a person calls it, the field that names an item in the lock file, and the
 * fields pinned, which are the only ones forwarded. A resource's `size` is left out: it changes
 * with the content, and says nothing to a model.
 */
export const PIN_KINDS: Readonly<Record<PinKind, { noun: string; key: string; fields: readonly string[] }>> = {
  tools: { noun: 'tool', key: 'name', fields: PINNED_FIELDS },
  prompts: { noun: 'prompt', key: 'name', fields: ['name', 'title', 'description', 'arguments', 'icons', '_meta'] },
  resources: { noun: 'resource', key: 'uri', fields: ['uri', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] },
  resource_templates: {
    noun: 'resource template',
    key: 'uriTemplate',
    fields: ['uriTemplate', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons', '_meta'],
  },
};

/** The name of an item in the lock file: a tool's or prompt's name, a resource's URI, a template's URI template. */
export function keyOf(kind: PinKind, item: object): string {
  return String((item as Record<string, unknown>)[PIN_KINDS[kind].key]);
}

/** An item's definition as pinned: its pinned fields that are present (mcpkit's renames and overrides are not part of it). */
export function definitionOf(kind: PinKind, item: object): Record<string, unknown> {
  const source = item as Record<string, unknown>;
  return Object.fromEntries(PIN_KINDS[kind].fields.filter((f) => source[f] !== undefined).map((f) => [f, source[f]]));
}

/** The upstream's tool definition as pinned. */
export function pinDefinition(tool: Tool): PinnedDefinition {
  return definitionOf('tools', tool) as unknown as PinnedDefinition;
}

/** SHA-256 of the canonical JSON (keys sorted) of the pinned definition. */
export function pinHash(definition: PinnedDefinition | Record<string, unknown>): string {
  return createHash('sha256').update(stableJson(definition)).digest('hex');
}

/** Pins by object and kind: an upstream's cached listing is compared on every catalog rebuild, and hashed once. */
const pinned: Record<PinKind, WeakMap<object, PinnedTool>> = {
  tools: new WeakMap(),
  prompts: new WeakMap(),
  resources: new WeakMap(),
  resource_templates: new WeakMap(),
};

export function pinOfItem(kind: PinKind, item: object): PinnedTool {
  let pin = pinned[kind].get(item);
  if (!pin) {
    const definition = definitionOf(kind, item) as unknown as PinnedDefinition;
    pinned[kind].set(item, (pin = { sha256: pinHash(definition), definition }));
  }
  return pin;
}

export function pinOf(tool: Tool): PinnedTool {
  return pinOfItem('tools', tool);
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

/** How a server's items of one kind now compare with its pins (names sorted). */
export function compareItems(kind: PinKind, pins: ServerPins, items: readonly object[]): PinComparison {
  const out: PinComparison = { unchanged: [], added: [], removed: [], changed: [] };
  const listed = new Set<string>();
  for (const item of items) {
    const key = keyOf(kind, item);
    listed.add(key);
    const pinned = pins[key];
    if (!pinned) out.added.push(key);
    else if (pinned.sha256 !== pinOfItem(kind, item).sha256) out.changed.push(key);
    else out.unchanged.push(key);
  }
  out.removed = Object.keys(pins).filter((key) => !listed.has(key));
  for (const list of Object.values(out)) list.sort();
  return out;
}

/** How a server's tools now compare with its pins (names sorted). */
export function comparePins(pins: ServerPins, tools: readonly Tool[]): PinComparison {
  return compareItems('tools', pins, tools);
}

/** Why a listed tool is not what was approved: never approved, another definition, or its pin in the lock file does not hold up. */
export type PinDifference = 'new' | 'changed' | 'tampered';

export interface ItemVerdict<T> {
  /** What may be served. */
  served: T[];
  /** What differs from its pins, why, and whether it is withheld (enforce) or served all the same (warn). */
  differing: { item: T; key: string; why: PinDifference; withheld: boolean }[];
  /** True when the server has no pins yet and may be trusted on first use: its items (even none) are to be pinned now. */
  firstUse: boolean;
}

/**
 * What a server's listing of one kind becomes under its pins and mode. No pins at all is first
 * use where it is allowed (`firstUse`: a person added the server): everything is served and
 * pinned by the caller, an empty listing too, so items that appear later are new. Where it is not
 * allowed (a server an agent added) no pins means nothing is approved yet. A pin whose readable
 * definition does not match its hash approves nothing (tampered).
 */
export function admitItems<T extends object>(kind: PinKind, items: readonly T[], pins: ServerPins | undefined, mode: PinMode, firstUse = true): ItemVerdict<T> {
  if (mode === 'off') return { served: [...items], differing: [], firstUse: false };
  if (pins === undefined && firstUse) return { served: [...items], differing: [], firstUse: true };
  const served: T[] = [];
  const differing: ItemVerdict<T>['differing'] = [];
  for (const item of items) {
    const key = keyOf(kind, item);
    const pinned = pins?.[key];
    const why = !pinned ? 'new' : !pinIntact(pinned, kind) ? 'tampered' : pinned.sha256 !== pinOfItem(kind, item).sha256 ? 'changed' : undefined;
    if (why) differing.push({ item, key, why, withheld: mode === 'enforce' });
    if (!why || mode === 'warn') served.push(item);
  }
  return { served, differing, firstUse: false };
}

export interface PinVerdict {
  served: Tool[];
  differing: { tool: Tool; why: PinDifference; withheld: boolean }[];
  firstUse: boolean;
}

/** admitItems for tools. */
export function admitTools(tools: readonly Tool[], pins: ServerPins | undefined, mode: PinMode, firstUse = true): PinVerdict {
  const verdict = admitItems('tools', tools, pins, mode, firstUse);
  return { served: verdict.served, differing: verdict.differing.map(({ item, why, withheld }) => ({ tool: item, why, withheld })), firstUse: verdict.firstUse };
}

/** How many of a listing's tools its pins withhold under `mode` (/health, server list). */
export function withheldCount(tools: readonly Tool[], pins: ServerPins | undefined, mode: PinMode, firstUse = true): number {
  return admitTools(tools, pins, mode, firstUse).differing.filter((d) => d.withheld).length;
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

const intact: Record<PinKind, WeakMap<object, boolean>> = {
  tools: new WeakMap(),
  prompts: new WeakMap(),
  resources: new WeakMap(),
  resource_templates: new WeakMap(),
};

/**
 * Whether a pin read from the lock file holds up: a definition and a sha256 that is the hash of
 * that definition. Someone who edits the readable text and keeps the hash (so that a review
 * reads benign), or the reverse, breaks it; neither half is trusted then.
 */
export function pinIntact(pin: unknown, kind: PinKind = 'tools'): boolean {
  if (!pin || typeof pin !== 'object') return false;
  const known = intact[kind].get(pin);
  if (known !== undefined) return known;
  const { sha256, definition } = pin as Partial<PinnedTool>;
  const fields = PIN_KINDS[kind].fields;
  const ok =
    typeof sha256 === 'string' &&
    !!definition &&
    typeof definition === 'object' &&
    typeof (definition as unknown as Record<string, unknown>)[PIN_KINDS[kind].key] === 'string' &&
    Object.keys(definition).every((k) => fields.includes(k)) &&
    pinHash(definition) === sha256;
  intact[kind].set(pin, ok);
  return ok;
}

/** A pin that does not hold up: which tool, and which fields of its readable definition were changed (known when the server lists the definition the hash is of). */
export interface TamperedPin {
  tool: string;
  fields: string[];
}

/** The pins of a server that do not hold up, with the fields that differ from the listed definition where the hash is that definition's. Pure. */
export function tamperedPins(pins: ServerPins, listed: readonly object[] = [], kind: PinKind = 'tools'): TamperedPin[] {
  const byKey = new Map(listed.map((item) => [keyOf(kind, item), item]));
  const out: TamperedPin[] = [];
  for (const [key, pin] of Object.entries(pins)) {
    if (pinIntact(pin, kind)) continue;
    const live = byKey.get(key);
    const definition = (pin as Partial<PinnedTool> | undefined)?.definition as Record<string, unknown> | undefined;
    let fields: string[] = [];
    if (live && definition && typeof definition === 'object' && pinOfItem(kind, live).sha256 === (pin as Partial<PinnedTool>).sha256) {
      const now = pinOfItem(kind, live).definition as unknown as Record<string, unknown>;
      fields = [...new Set([...Object.keys(definition), ...Object.keys(now)])].filter((k) => stableJson(definition[k]) !== stableJson(now[k])).sort();
    }
    out.push({ tool: key, fields });
  }
  return out.sort((a, b) => (a.tool < b.tool ? -1 : 1));
}

/** A server's listing of every pinned kind (tools always; the others where the server has them). */
export type Listing = { tools: readonly Tool[] } & Partial<Record<Exclude<PinKind, 'tools'>, readonly object[]>>;

/**
 * The digest of a listing as a person reviewed it (server diff): the server's name and the hash
 * of every definition listed, of every kind. `server approve --digest` records a listing only
 * while it still has this digest, so what is approved is what was shown. Pure.
 */
export function reviewDigest(server: string, listing: Listing): string {
  const hashes = Object.fromEntries(
    (Object.keys(PIN_KINDS) as PinKind[])
      .filter((kind) => kind === 'tools' || listing[kind]?.length)
      .map((kind) => [kind, Object.fromEntries((listing[kind] ?? []).map((item) => [keyOf(kind, item), pinOfItem(kind, item).sha256]))]),
  );
  return createHash('sha256')
    .update(stableJson({ server, ...hashes }))
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

/** What a person (and a client, under warn) is told of a tool (or prompt, resource, template) that differs from its pins. */
export function differingMessage(server: string, tool: string, why: PinDifference, mode: PinMode, noun = 'tool'): string {
  const what =
    why === 'new'
      ? `a new ${noun} "${tool}" that was never approved`
      : why === 'changed'
        ? `${noun} "${tool}" changed since it was approved`
        : `${noun} "${tool}" whose pin in the lock file does not match its own hash (edited by hand?)`;
  const done = mode === 'enforce' ? 'it is withheld' : 'it is served (pinning: warn)';
  return `server "${server}" has ${what}: ${done}. Review with: mcpkit server diff ${server}; approve what it shows with: mcpkit server approve ${server} --digest DIGEST`;
}
