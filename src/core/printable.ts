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
