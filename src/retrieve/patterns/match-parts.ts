/**
 * The matched parts of one line, as rg -o prints them: each match's text, left to right, none
 * overlapping. An empty match is a part too (rg prints it as an empty line), except one that
 * starts where the previous match ended: Rust's regex crate, which rg uses, skips those, where a
 * JavaScript global search would report them. Only printed lines are split this way (the line
 * matcher finds whole lines). Pure.
 */
export type PartsOf = (line: string, most?: number) => string[];

/** The parts of a literal needle: each occurrence, not overlapping. */
export function literalParts(needle: string): PartsOf {
  return (line, most = Number.POSITIVE_INFINITY) => {
    const parts: string[] = [];
    for (let at = line.indexOf(needle); at >= 0 && parts.length < most; at = line.indexOf(needle, at + needle.length)) parts.push(needle);
    return parts;
  };
}

/** The parts of a regular expression (its flags other than g and y are kept). */
export function regexParts(re: RegExp): PartsOf {
  const global = new RegExp(re.source, `${re.flags.replace(/[gy]/g, '')}g`);
  return (line, most = Number.POSITIVE_INFINITY) => {
    const parts: string[] = [];
    let lastEnd = -1;
    global.lastIndex = 0;
    for (let m = global.exec(line); m && parts.length < most; m = global.exec(line)) {
      const start = m.index;
      const end = start + m[0].length;
      if (start === end) {
        // Step past the empty match by a whole character, as a search that never splits one does.
        global.lastIndex = end + (isPairAt(line, end) ? 2 : 1);
        if (start === lastEnd) continue;
      }
      parts.push(m[0]);
      lastEnd = end;
    }
    return parts;
  };
}

function isPairAt(text: string, at: number): boolean {
  const high = text.charCodeAt(at);
  const low = text.charCodeAt(at + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}
