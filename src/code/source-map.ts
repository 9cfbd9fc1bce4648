/**
 * The columns of a source map's `mappings` (version 3), decoded: enough to take a place in the
 * engine's JavaScript back to the script as written (./strip-types.ts, whose TypeScript removal
 * keeps lines but not columns). Pure.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** A segment: the generated column, and the source line and column it comes from (all 0-based). */
export type Segment = readonly [generatedColumn: number, sourceLine: number, sourceColumn: number];

/** The segments of each generated line, in order of column. */
export function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const line of mappings.split(';')) {
    const segments: Segment[] = [];
    let column = 0;
    for (const text of line.split(',')) {
      if (!text) continue;
      const fields = vlq(text);
      column += fields[0] ?? 0;
      // Fields 2 to 4 (source index, line, column) are there together or not at all.
      if (fields.length >= 4) {
        sourceLine += fields[2]!;
        sourceColumn += fields[3]!;
        segments.push([column, sourceLine, sourceColumn]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

/** Base64 VLQ: 5 bits a digit, the sixth says another follows; the lowest bit of a value is its sign. */
function vlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = DIGIT.get(char);
    if (digit === undefined) return out;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

/** Where a generated place (0-based) comes from: the last segment at or before it, plus the way past it. */
export function sourcePlace(lines: readonly Segment[][], line: number, column: number): { line: number; column: number } | undefined {
  const segments = lines[line];
  if (!segments?.length) return undefined;
  let found: Segment | undefined;
  for (const segment of segments) {
    if (segment[0] > column) break;
    found = segment;
  }
  if (!found) return { line: segments[0]![1], column };
  return { line: found[1], column: found[2] + (column - found[0]) };
}
