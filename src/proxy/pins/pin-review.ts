import { diffLines } from 'diff';
import { stableJson } from '../../core/stable-json.js';
import {
  compareItems,
  escapeInvisible,
  invisibleInDefinition,
  keyOf,
  pinOfItem,
  tamperedPins,
  type PinKind,
  type PinnedDefinition,
  type ServerPins,
  type TamperedPin,
} from './pins.js';

/** How a person reviews a tool's definition against its pin (server diff). Pure. */

/** The definition as a person reviews it: YAML-like JSON, keys sorted, invisible characters escaped. */
export function reviewText(definition: PinnedDefinition | undefined): string {
  if (!definition) return '';
  return `${escapeInvisible(stableJson(definition, 2))}\n`;
}

/** A line diff of two definitions: "- " approved, "+ " now, "  " the same. */
export function definitionDiff(approved: PinnedDefinition | undefined, now: PinnedDefinition | undefined): string[] {
  const lines: string[] = [];
  for (const part of diffLines(reviewText(approved), reviewText(now))) {
    const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) lines.push(`${mark}${line}`);
  }
  return lines;
}

/** How one kind of a server's listing compares with its pins, as server diff shows it. */
export interface KindReview {
  kind: PinKind;
  /** Whether the lock file has pins of this kind for the server. */
  pinned: boolean;
  added: { name: string; diff: string[] }[];
  removed: { name: string; diff: string[] }[];
  changed: { name: string; diff: string[] }[];
  unchanged: number;
  /** Pins whose readable definition does not match their hash, with the fields edited where that is known. */
  tampered: TamperedPin[];
  /** Items whose definition has invisible characters. */
  invisible: { tool: string; characters: string[] }[];
}

/** A server's items of one kind against their pins: what is new, gone, changed or tampered with, each with its diff. */
export function reviewKind(kind: PinKind, pins: ServerPins | undefined, items: readonly object[]): KindReview {
  const own = pins ?? {};
  const compared = compareItems(kind, own, items);
  const byKey = new Map(items.map((item) => [keyOf(kind, item), item]));
  const now = (key: string) => pinOfItem(kind, byKey.get(key)!).definition;
  return {
    kind,
    pinned: pins !== undefined,
    added: compared.added.map((name) => ({ name, diff: definitionDiff(undefined, now(name)) })),
    removed: compared.removed.map((name) => ({ name, diff: definitionDiff(own[name]?.definition, undefined) })),
    changed: compared.changed.map((name) => ({ name, diff: definitionDiff(own[name]?.definition, now(name)) })),
    unchanged: compared.unchanged.length,
    tampered: tamperedPins(own, items, kind),
    invisible: items.flatMap((item) => {
      const characters = invisibleInDefinition(pinOfItem(kind, item).definition);
      return characters.length ? [{ tool: keyOf(kind, item), characters }] : [];
    }),
  };
}

/** Whether a review found anything that differs from the approved pins. */
export function reviewDiffers(review: KindReview): boolean {
  return review.added.length + review.removed.length + review.changed.length + review.tampered.length > 0;
}
