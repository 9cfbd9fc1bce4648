/**
 * The one definition of text a person does not see but a model reads: every default-ignorable
 * code point (zero-width characters, variation selectors U+FE00-FE0F and U+E0100-E01EF, the Hangul
 * fillers, U+00AD, tag characters U+E0000-E007F that spell text in plain sight), every format
 * character (Cf: bidi overrides and isolates, U+200B-200F, U+2060-2064, U+FEFF), the line and
 * paragraph separators U+2028/U+2029, and control characters other than tab and line breaks.
 * Unicode's own properties decide, so a new default-ignorable character is covered without a
 * list to keep. Pure.
 */
// eslint-disable-next-line no-control-regex -- control characters are part of what this matches
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/gu;

const codePoint = (c: string) => c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');

/** The invisible characters in a text, as U+XXXX, each once, in order of first appearance. */
export function invisibleIn(text: string): string[] {
  return [...new Set([...text.matchAll(INVISIBLE)].map((m) => `U+${codePoint(m[0])}`))];
}

/** The text with each invisible character shown as \u{XXXX}, so a person sees what a model would read. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** Each run of invisible characters in a text: where it starts, how long it is (UTF-16 units), and its characters. */
export function invisibleSpans(text: string): { start: number; length: number; characters: string[] }[] {
  const spans: { start: number; length: number; characters: string[] }[] = [];
  for (const m of text.matchAll(INVISIBLE)) {
    const last = spans.at(-1);
    if (last && last.start + last.length === m.index) {
      last.length += m[0].length;
      if (!last.characters.includes(`U+${codePoint(m[0])}`)) last.characters.push(`U+${codePoint(m[0])}`);
    } else spans.push({ start: m.index, length: m[0].length, characters: [`U+${codePoint(m[0])}`] });
  }
  return spans;
}
