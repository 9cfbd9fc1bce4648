/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides: in a name printed to a
 * terminal they could forge lines (a newline), send escape sequences (ESC) or reorder what is
 * shown. Matching control characters is this expression's whole job.
 */
// eslint-disable-next-line no-control-regex -- see above
const UNPRINTABLE = new RegExp('[\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]', 'g');
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text for one line of a terminal: every control character escaped (`\n`, `\u001b`). Pure. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Like `printable`, but its line breaks stay (a message of several lines). Pure. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

// eslint-disable-next-line no-control-regex -- see UNPRINTABLE
const UNPRINTABLE_TEXT = new RegExp('[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]', 'g');
const HAS_UNPRINTABLE_TEXT = new RegExp(UNPRINTABLE_TEXT.source);

/** Like `printable`, but line breaks and tabs stay: text of several lines (a file, a diff, YAML). Pure. */
export function printableText(text: string): string {
  return text.replace(UNPRINTABLE_TEXT, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Every string in a value made safe for a terminal (`printableText`): what a command renders of a
 * result came from outside (an upstream's descriptions, a client's name, a registry's text, a
 * file's name), and an escape sequence in it could clear the screen, set the title or forge a
 * line of a review. The terminal front end renders only what passed through here, so the only
 * escape sequences it prints are its own colours. Pure; values without such characters are
 * returned as they are.
 */
export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return (HAS_UNPRINTABLE_TEXT.test(value) ? printableText(value) : value) as T;
  if (Array.isArray(value)) {
    const safe = value.map(terminalSafe);
    return (safe.some((v, i) => v !== value[i]) ? safe : value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const safe = terminalSafe(v);
      const key = terminalSafe(k);
      if (safe !== v || key !== k) changed = true;
      out[key] = safe;
    }
    return (changed ? out : value) as T;
  }
  return value;
}
