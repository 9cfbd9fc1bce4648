import type { RequestId } from '@modelcontextprotocol/server';

/**
 * Whether an upstream's answer line can be sent to a client as it came, its id swapped for the
 * client's, rather than parsed and serialized again: only when every JSON reader reads those bytes
 * as mcpkit's JSON.parse did. A hostile upstream could otherwise show a client something other
 * than what mcpkit checked and recorded: a key twice (`{"isError":false,"isError":true}`, two ids:
 * readers differ on which one wins), a number JSON.parse rounds (a reader with big integers sees
 * other digits), a key spelled with escapes, `__proto__`. The line is read once, from quote to
 * quote (strings are skipped with indexOf, not walked), counting keys; the parsed tree's keys are
 * counted too, and any key JSON.parse dropped as a duplicate makes the counts differ. Pure.
 */

/** A line that may be passed on: the client's id spliced in, and where the result's bytes are in it. */
export interface CanonicalAnswer {
  text: string;
  /** The result's value in `text`, [start, end). */
  resultStart: number;
  resultEnd: number;
}

/** What the scan found at the top level of the line. */
interface TopLevel {
  idStart: number;
  idEnd: number;
  resultStart: number;
  resultEnd: number;
  keys: number;
}

const QUOTE = 34; // "

/** A character of a JSON number: a digit, `-`, `+`, `.`, `e`, `E`. */
const inNumber = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;

/** How many keys the parsed tree holds, every level. */
function keysIn(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += keysIn(item);
    return n;
  }
  for (const key in value) n += 1 + keysIn((value as Record<string, unknown>)[key]);
  return n;
}

/** A JSON string from its opening quote: runs without quotes or backslashes, and escapes (unrolled, so one escape is one step). */
const stringPattern = () => /"[^"\\]*(?:\\.[^"\\]*)*"/y;

/**
 * The index of the quote that closes the string opened at `open`. `backslash` is the first
 * backslash after `open` (-1: none): a string without one ends at the next quote, found at
 * memchr's speed; one with escapes is matched by `string` (stringPattern's, one per scan).
 */
function stringEnd(string: RegExp, line: string, open: number, backslash: number): number {
  const quote = line.indexOf('"', open + 1);
  if (quote < 0 || backslash === -1 || backslash > quote) return quote;
  string.lastIndex = open;
  return string.test(line) ? string.lastIndex - 1 : -1;
}

/** A number JSON.stringify writes as it stands: an integer of at most 15 digits, no leading zero, not -0. */
function plainInteger(line: string, start: number, end: number): boolean {
  const first = line.charCodeAt(start) === 45 ? start + 1 : start;
  const digits = end - first;
  if (digits === 0 || digits > 15 || (line.charCodeAt(first) === 48 && (digits > 1 || first > start))) return false;
  for (let i = first; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Scans the line: the top-level id's and result's spans, and the keys of every level, or
 * undefined when a key has an escape, a number is not as JSON.stringify writes it, or a top-level
 * member is not where the scan expects it.
 */
function scan(line: string): TopLevel | undefined {
  const found: TopLevel = { idStart: -1, idEnd: -1, resultStart: -1, resultEnd: -1, keys: 0 };
  /** Open containers: true for an object. */
  const open: boolean[] = [];
  let expectKey = false;
  let topKey = '';
  let afterColon = false;
  // Where the next backslash is, kept ahead of the scan (looking it up per key would be quadratic).
  let backslash = line.indexOf('\\');
  const string = stringPattern();
  for (let i = 0; i < line.length;) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      if (backslash !== -1 && backslash < i) backslash = line.indexOf('\\', i);
      const end = stringEnd(string, line, i, backslash);
      if (end < 0) return undefined;
      if (expectKey) {
        // A key with an escape could spell `__proto__`, or `id`, in other letters.
        if (backslash !== -1 && backslash < end) return undefined;
        if (open.length === 1) topKey = line.slice(i + 1, end);
        expectKey = false;
      } else if (afterColon && open.length === 1) {
        if (topKey === 'id') [found.idStart, found.idEnd] = [i, end + 1];
        if (topKey === 'result') return undefined; // a result is an object
      }
      afterColon = false;
      i = end + 1;
      continue;
    }
    if (afterColon && open.length === 1 && topKey === 'result' && c === 123) found.resultStart = i;
    if (c === 123 || c === 91) {
      open.push(c === 123);
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      open.pop();
      expectKey = false;
      if (open.length === 1 && topKey === 'result' && found.resultEnd < 0 && found.resultStart >= 0) found.resultEnd = i + 1;
    } else if (c === 44) {
      expectKey = open[open.length - 1] === true;
    } else if (c === 58) {
      found.keys++;
      afterColon = true;
      i++;
      continue;
    } else if ((c >= 48 && c <= 57) || c === 45) {
      let end = i + 1;
      while (end < line.length && inNumber(line.charCodeAt(end))) end++;
      // A number as JSON.stringify writes it is what String(Number(token)) gives back.
      if (!plainInteger(line, i, end) && String(Number(line.slice(i, end))) !== line.slice(i, end)) return undefined;
      if (afterColon && open.length === 1 && topKey === 'id') return undefined; // our ids are strings
      i = end;
      afterColon = false;
      continue;
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) afterColon = false;
    i++;
  }
  return found;
}

/**
 * `line` (one JSON-RPC response, as `parsed` was read from it, whose id is `ourId`) with
 * `clientId` in place of ours, when the line is canonical as the module comment says; undefined
 * when it must be parsed and serialized again. Pure.
 */
export function canonicalAnswer(line: string, parsed: { id: RequestId; result: object }, clientId: RequestId): CanonicalAnswer | undefined {
  if (typeof parsed.id !== 'string' || line.includes('__proto__')) return undefined;
  const top = scan(line);
  if (!top || top.idStart < 0 || top.resultStart < 0 || top.resultEnd < 0) return undefined;
  if (line.slice(top.idStart, top.idEnd) !== JSON.stringify(parsed.id)) return undefined;
  // Every key JSON.parse kept was counted in the line; one it dropped (a duplicate) was counted there only.
  if (top.keys !== keysIn(parsed)) return undefined;
  return splice(line, top, JSON.stringify(clientId));
}

function splice(line: string, top: TopLevel, id: string): CanonicalAnswer {
  const text = line.slice(0, top.idStart) + id + line.slice(top.idEnd);
  const shift = id.length - (top.idEnd - top.idStart);
  const moved = top.resultStart > top.idStart ? shift : 0;
  return { text, resultStart: top.resultStart + moved, resultEnd: top.resultEnd + moved };
}
