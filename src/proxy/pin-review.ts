import { diffLines } from 'diff';
import { stableJson } from '../core/stable-json.js';
import { escapeInvisible, type PinnedDefinition } from './pins.js';

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
