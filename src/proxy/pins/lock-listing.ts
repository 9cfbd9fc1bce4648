import type { Tool } from '@modelcontextprotocol/server';
import type { PinnedTool } from '../../config/files/pin-file.js';
import { PINNED_FIELDS, pinIntact, pinOf, type PinMode, type ServerPins } from './pins.js';

/**
 * The approved lock as a server's listing while it starts (serve's first tools/list at once): the
 * lock is the reviewed truth, and under pinning enforce no tool outside it is ever served. A call
 * still waits for its server (../catalog/view-catalog.ts entryForCall lists it live first), and the live listing,
 * once in, replaces this one (list_changed when what is served differs).
 */
export function approvedTools(pins: ServerPins | undefined): Tool[] | undefined {
  if (!pins) return undefined;
  const tools: Tool[] = [];
  for (const pin of Object.values(pins)) {
    // A pin whose hash does not hold is withheld when the server lists it; it is not offered either.
    if (!pinIntact(pin)) continue;
    tools.push(toolOf(pin));
  }
  return tools.length ? tools : undefined;
}

/** The pinned definition as MCP lists a tool (only the fields pinned: those are all that is forwarded). */
function toolOf(pin: PinnedTool): Tool {
  const definition = pin.definition as unknown as Record<string, unknown>;
  const tool: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) if (definition[field] !== undefined) tool[field] = definition[field];
  return tool as Tool;
}

/** Whether a listing answers from the lock for this source: enforced pins, and no live listing yet from a server not down. */
export function answersFromLock(
  source: { listedLive?(): boolean; status(): { state: string } },
  mode: PinMode,
  approved: readonly Tool[] | undefined,
): approved is readonly Tool[] {
  return mode === 'enforce' && approved !== undefined && source.listedLive?.() === false && source.status().state !== 'down';
}

/** Whether the live listing serves exactly what the lock did (every approved tool listed unchanged): no list_changed is due. */
export function servesAsApproved(live: readonly Tool[], approved: readonly Tool[]): boolean {
  const listed = new Set(live.map((t) => pinOf(t).sha256));
  return approved.every((t) => listed.has(pinOf(t).sha256));
}
