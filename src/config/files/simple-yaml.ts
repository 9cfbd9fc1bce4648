/**
 * The value of a YAML text written as mcpkit writes its lock file (`stringify(body, { lineWidth: 0 })`
 * of plain data: block mappings and sequences, one scalar a line), read without the `yaml` package,
 * whose parser costs ~30 ms of CPU cold on server-everything's 11 KB lock (measured: most of what a
 * serve's first read of its pins cost). Anything outside that narrow form (comments after the
 * header, block scalars, anchors, tags, flow collections other than `[]` and `{}`, escapes JSON
 * lacks, a duplicate or `__proto__` key, a plain scalar the core schema would read as other than a
 * string, a number or a boolean) is NOT_SIMPLE, and the caller parses it with `yaml` as before:
 * what this returns is what `parse` returns for the same text, or nothing. Pure.
 */
export const NOT_SIMPLE = Symbol('not simple YAML');

interface Line {
  indent: number;
  body: string;
}

class NotSimple extends Error {}

/** Tabs, carriage returns, a byte-order mark, control and C1 characters, line and paragraph separators: `yaml` decides. */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNUSUAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** The text's value (as `yaml`'s `parse` gives it), or NOT_SIMPLE. */
export function simpleYamlValue(text: string): unknown {
  if (UNUSUAL.test(text)) return NOT_SIMPLE;
  const raw = text.split('\n');
  // One newline at the end, or none; the header's comments at the top, and no other.
  if (raw[raw.length - 1] === '') raw.pop();
  let first = 0;
  while (first < raw.length && raw[first]!.startsWith('#')) first += 1;
  const lines: Line[] = [];
  for (let i = first; i < raw.length; i += 1) {
    const line = raw[i]!;
    // Only ASCII spaces indent YAML: a line led by other white space (a no-break space looks like one
    // in an editor and a diff, and is content to `yaml`) is `yaml`'s to read.
    const body = line.replace(/^ +/, '');
    if (body === '' || /^\s/.test(body) || body.startsWith('#') || body.endsWith(' ')) return NOT_SIMPLE;
    lines.push({ indent: line.length - body.length, body });
  }
  if (lines.length === 0 || lines[0]!.indent !== 0) return NOT_SIMPLE;
  try {
    const reader = new Reader(lines);
    const value = reader.mapping(0, 0);
    return reader.at === lines.length ? value : NOT_SIMPLE;
  } catch (error) {
    // Not this form (or nested deeper than the stack allows): `yaml` reads it, and words any error.
    if (error instanceof NotSimple || error instanceof RangeError) return NOT_SIMPLE;
    throw error;
  }
}

class Reader {
  at = 0;
  constructor(private readonly lines: Line[]) {}

  /** The block mapping whose keys start at `indent`, from line `start` (whose body may be the rest of a `- ` line). */
  mapping(start: number, indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at = start;
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw new NotSimple();
      const entry = keyOf(line.body);
      if (!entry || Object.hasOwn(out, entry.key)) throw new NotSimple();
      this.at += 1;
      out[entry.key] = entry.rest === '' ? this.nested(indent) : scalar(entry.rest);
    }
    return out;
  }

  /** The value of a `key:` that ends its line: a mapping or sequence indented deeper on the next lines. */
  private nested(indent: number): unknown {
    const next = this.lines[this.at];
    // An empty value (null), or a sequence at the key's own indent: `yaml` reads those.
    if (!next || next.indent <= indent) throw new NotSimple();
    return next.body.startsWith('- ') ? this.sequence(next.indent) : this.mapping(this.at, next.indent);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent || !line.body.startsWith('- ')) throw new NotSimple();
      const rest = line.body.slice(2);
      if (rest.startsWith(' ') || rest.startsWith('-')) throw new NotSimple();
      if (keyOf(rest)) {
        // `- key: value`: a mapping whose keys start two columns in, on this line and the next ones.
        const at = this.at;
        const saved = this.lines[at]!;
        this.lines[at] = { indent: indent + 2, body: rest };
        try {
          out.push(this.mapping(at, indent + 2));
        } finally {
          this.lines[at] = saved;
        }
      } else {
        out.push(scalar(rest));
        this.at += 1;
      }
    }
    return out;
  }
}

const DOUBLE_QUOTED = /^"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"/;
const SINGLE_QUOTED = /^'(?:[^']|'')*'$/;

/** The key and what follows `key: ` on a mapping's line, when the line is one (a plain or double-quoted key). */
function keyOf(body: string): { key: string; rest: string } | undefined {
  let key: string;
  let after: number;
  if (body.startsWith('"')) {
    const quoted = DOUBLE_QUOTED.exec(body);
    if (!quoted) return undefined;
    key = JSON.parse(quoted[0]) as string;
    after = quoted[0].length;
  } else {
    after = body.indexOf(':');
    if (after <= 0) return undefined;
    key = body.slice(0, after);
    if (plainString(key) === undefined) return undefined;
  }
  if (body[after] !== ':' || (after + 1 < body.length && body[after + 1] !== ' ')) return undefined;
  // yaml refuses an implicit key over 1024 characters.
  if (after > 1000) return undefined;
  if (key === '__proto__' || key === '<<') return undefined;
  const rest = body.slice(after + 2);
  return rest.startsWith(' ') ? undefined : { key, rest };
}

/** A scalar that fills the rest of its line. */
function scalar(text: string): unknown {
  if (text === '[]') return [];
  if (text === '{}') return {};
  if (text.startsWith('"')) {
    const quoted = DOUBLE_QUOTED.exec(text);
    if (!quoted || quoted[0].length !== text.length) throw new NotSimple();
    return JSON.parse(text) as string;
  }
  if (text.startsWith("'")) {
    if (!SINGLE_QUOTED.test(text)) throw new NotSimple();
    return text.slice(1, -1).replaceAll("''", "'");
  }
  return plainValue(text);
}

// The core schema's tests, as `yaml` 2 runs them on a plain scalar (yaml/dist/schema/core).
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const TRUE = /^(?:[Tt]rue|TRUE)$/;
const FALSE = /^(?:[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar's value, resolved as the core schema does (first match wins, in its order). */
function plainValue(text: string): unknown {
  if (NULL.test(text)) return null;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  if (INT_OCT.test(text)) throw new NotSimple();
  if (INT.test(text)) return parseInt(text, 10);
  if (INT_HEX.test(text) || FLOAT_NAN.test(text)) throw new NotSimple();
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  const value = plainString(text);
  if (value === undefined) throw new NotSimple();
  return value;
}

/**
 * A plain scalar that is a string as written: it starts with no indicator, space or sign, holds no
 * `: ` or ` #`, ends in no `:`, and no core schema tag would read it as anything but a string.
 */
function plainString(text: string): string | undefined {
  if (text === '' || /^[-?:,[\]{}#&*!|>'"%@`+.~ ]/.test(text)) return undefined;
  if (text.includes(': ') || text.includes(' #') || text.endsWith(':') || text.endsWith(' ')) return undefined;
  if (NULL.test(text) || TRUE.test(text) || FALSE.test(text) || INT_OCT.test(text) || INT.test(text) || INT_HEX.test(text)) return undefined;
  if (FLOAT_NAN.test(text) || FLOAT_EXP.test(text) || FLOAT.test(text)) return undefined;
  return text;
}
