import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { NOT_SIMPLE, simpleYamlValue } from '../../src/config/files/simple-yaml.js';

// simpleYamlValue stands in for yaml's parse on the lock files mcpkit writes: whatever it returns
// must be what parse returns for the same text (value for value, -0 and prototypes counted), and a
// text parse refuses must never be read here.
function agreesWithParse(text: string): 'simple' | 'parsed' {
  const value = simpleYamlValue(text);
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch {
    expect(value, `a text parse refuses was read:\n${text}`).toBe(NOT_SIMPLE);
    return 'parsed';
  }
  if (value === NOT_SIMPLE) return 'parsed';
  expect(isDeepStrictEqual(value, parsed), `differs from parse:\n${text}`).toBe(true);
  return 'simple';
}

const HEADER = '# mcpkit tool pins: the approved definition of each upstream tool, by server.\n# Commit this file beside the config.\n';
const written = (body: unknown) => `${HEADER}${stringify(body, { lineWidth: 0 })}`;

const lockLike = {
  version: 1,
  servers: {
    everything: {
      echo: {
        sha256: '99334395706a84865418ecbf36066cd4129006a52808b0aeb067fc048e5fc5e5',
        definition: {
          name: 'echo',
          title: 'Echo Tool',
          description: "Returns a link, 'resourceLink' or a [list], {braces}, a:b, 50% and x#y",
          inputSchema: {
            type: 'object',
            properties: { message: { type: 'string', minLength: 0, maximum: 1.5, default: -3, enum: ['New York', 'Los Angeles'] } },
            required: ['message'],
            additionalProperties: false,
          },
          annotations: { readOnlyHint: true, openWorldHint: false, nothing: null },
          items: [{ a: 1, b: [{ c: 'd' }, []] }, {}, 'plain'],
        },
      },
    },
  },
  approvals_dropped: { everything: 0 },
};

/** White space JavaScript trims and YAML does not take for indentation. */
const UNICODE_SPACES = ['\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u202f', '\u205f', '\u3000'];

describe('simpleYamlValue', () => {
  it('reads the form mcpkit writes without yaml, as parse reads it', () => {
    expect(agreesWithParse(written(lockLike))).toBe('simple');
    expect(agreesWithParse(written({ version: 1, servers: {} }))).toBe('simple');
  });

  it('reads the lock of the profiled serve (server-everything) without yaml', () => {
    // The lock `server approve` wrote for server-everything (its 13 tools), as a serve start reads it.
    const text = readFileSync(new URL('../fixtures/data/everything.lock.yaml', import.meta.url), 'utf8');
    expect(agreesWithParse(text)).toBe('simple');
  });

  // Each is left to yaml: the form is not the writer's, or the core schema reads it as other than a string.
  const leftToYaml: [string, string][] = [
    ['an empty text', ''],
    ['a comment after the header', 'a: 1\n# c\nb: 2\n'],
    ['a comment after a value', 'a: 1 # c\n'],
    ['a blank line', 'a: 1\n\nb: 2\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate key, one quoted', 'a: 1\n"a": 2\n'],
    ['a key with no value', 'a:\nb: 1\n'],
    ['a sequence at its key’s indent', 'a:\n- x\n- y\n'],
    ['a block scalar', 'a: |-\n  x\n  y\n'],
    ['a folded scalar', 'a: >\n  x\n'],
    ['a plain scalar on two lines', 'a: x\n  y\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a flow mapping', 'a: {b: 1}\n'],
    ['a flow sequence', 'a: [1, 2]\n'],
    ['a key named __proto__', '__proto__:\n  polluted: true\n'],
    ['a merge key', '<<:\n  a: 1\n'],
    ['a hex, an octal, an infinity', 'a: 0x10\n'],
    ['an octal', 'a: 0o10\n'],
    ['not a number', 'a: .nan\n'],
    ['a number as a key', '1: a\n'],
    ['true as a key', 'true: a\n'],
    ['a tab', 'a:\tb\n'],
    ['a carriage return', 'a: 1\r\nb: 2\r\n'],
    ['a byte-order mark', '\ufeffa: 1\n'],
    ['an escape JSON lacks', 'a: "\\x41"\n'],
    ['a document marker', '---\na: 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a top-level sequence', '- a\n'],
    ['an indented first line', '  a: 1\n'],
    ['a nested mapping in a compact one', 'a: b: c\n'],
    ['trailing spaces', 'a: b \n'],
    ['two spaces after the colon', 'a:  b\n'],
    ['a nested sequence item', 'a:\n  - - x\n'],
    ['an empty sequence item', 'a:\n  -\n'],
    ['a deeper line in a mapping', 'a: 1\n  b: 2\n'],
    ['a key at a shallower indent', 'a:\n    b: 1\n  c: 2\n'],
    ['a key over 1024 characters', `${'k'.repeat(1100)}: 1\n`],
    ['a quoted key over 1024 characters', `"${'k'.repeat(1100)}": 1\n`],
    ['a key over 1024 characters in a sequence', `a:\n  - ${'k'.repeat(1100)}: 1\n`],
    // Content to yaml, not indentation: each reads differently (or not at all) there.
    ['a line indented with no-break spaces', 'a:\n\u00a0\u00a0b: 1\n'],
    ['a line indented with a space and a no-break space', 'a:\n \u00a0b: 1\n'],
    ['a sequence indented with no-break spaces', 'a:\n\u00a0\u00a0- x\n'],
    ['a line indented with an ideographic space', 'a:\n  b:\n\u3000\u3000c: 1\n'],
    ['a line indented with an en quad', 'a:\n\u2000b: 1\n'],
  ];
  it.each(leftToYaml)('leaves %s to yaml', (_what, text) => {
    expect(simpleYamlValue(text)).toBe(NOT_SIMPLE);
    agreesWithParse(text);
  });

  // Plain scalars each way the core schema reads them, as parse does.
  const scalars: [string, unknown][] = [
    ['a: 12', { a: 12 }],
    ['a: -0', { a: -0 }],
    ['a: 007', { a: 7 }],
    ['a: -1.50', { a: -1.5 }],
    ['a: 1e-7', { a: 1e-7 }],
    ['a: 1.', { a: 1 }],
    ['a: ~', { a: null }],
    ['a: NULL', { a: null }],
    ['a: True', { a: true }],
    ['a: FALSE', { a: false }],
    ['a: yes', { a: 'yes' }],
    ['a: 1.0.0', { a: '1.0.0' }],
    ['a: 2001-12-14', { a: '2001-12-14' }],
    ['a: http://x/y?z#w', { a: 'http://x/y?z#w' }],
    ['a: "q \\"x\\" \\u00e9 \\n"', { a: 'q "x" é \n' }],
    ["a: 'it''s'", { a: "it's" }],
    ['"a b": 1', { 'a b': 1 }],
    ['constructor: 1', { constructor: 1 }],
    ['k]: x]', { 'k]': 'x]' }],
    ['a: b,c{d}', { a: 'b,c{d}' }],
  ];
  it.each(scalars)('reads %s as parse does', (text, value) => {
    expect(isDeepStrictEqual(simpleYamlValue(`${text}\n`), value)).toBe(true);
    expect(agreesWithParse(`${text}\n`)).toBe('simple');
  });

  it('agrees with parse on written bodies of awkward strings and keys, and on each of them damaged', () => {
    // A fixed pseudo-random walk: the same cases every run.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const strings = [
      ...['', ' lead', 'trail ', '#x', 'x #y', '- x', '? x', ': x', 'a: b', 'a:', '{a}', '[a]', '|', '>', '!t', '&a', '*a', '@x', '`x', '%x', '"q', "'q"],
      ...['yes', 'no', '~', 'null', 'Null', 'true', 'False', '0x10', '0o7', '1_000', '.inf', '-.Inf', 'NaN', '.nan', '012', '+1', '-1', '1e3', '.5', '5.'],
      ...['a\nb', 'a\r\nb', '\t', '\u0085', '\u2028', '\u00a0', 'é😀', '\\', 'a\\nb', 'x'.repeat(100), '<<', '__proto__', '-', '--- x', '...', 'a #', 'a# b'],
    ];
    const leaf = (): unknown => {
      const kind = random(6);
      if (kind === 0) return strings[random(strings.length)];
      if (kind === 1) return [0, -0, 1, -7, 1.5, 1e21, 1e-7, 2 ** 53 + 2, 0.1][random(9)];
      if (kind === 2) return [true, false, null][random(3)];
      if (kind === 3) return random(2) ? [] : {};
      return `word ${random(1000)}`;
    };
    const node = (depth: number): unknown => {
      if (depth > 3 || random(3) === 0) return leaf();
      if (random(2)) return Array.from({ length: 1 + random(3) }, () => node(depth + 1));
      const out: Record<string, unknown> = {};
      for (let i = random(4); i >= 0; i -= 1) {
        const key = random(3) ? `k${random(50)}` : strings[random(strings.length)]!;
        Object.defineProperty(out, key, { value: node(depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    };
    let simple = 0;
    for (let i = 0; i < 400; i += 1) {
      const text = written({ version: 1, servers: { s: node(0) } });
      if (agreesWithParse(text) === 'simple') simple += 1;
      // Damaged as a person's edit could: a line re-indented, cut, doubled or given a comment.
      const lines = text.split('\n');
      const at = random(lines.length);
      const damaged = [...lines];
      const how = random(5);
      if (how === 0) damaged[at] = ` ${damaged[at]}`;
      else if (how === 1) damaged[at] = damaged[at]!.slice(1);
      else if (how === 2) damaged.splice(at, 0, lines[at]!);
      else if (how === 3) damaged[at] = `${damaged[at]} # c`;
      else damaged[at] = damaged[at]!.slice(0, random(damaged[at]!.length + 1));
      agreesWithParse(damaged.join('\n'));
      // An indented line whose indentation is, wholly or in part, white space other than ASCII spaces
      // (a no-break space looks like a space): content to yaml, never indentation.
      const indented = lines.flatMap((line, n) => (line.startsWith(' ') ? [n] : []));
      if (indented.length) {
        const n = indented[random(indented.length)]!;
        const other = [...lines];
        other[n] = other[n]!.replace(/^ +/, (spaces) => {
          const keep = random(spaces.length);
          return ' '.repeat(keep) + UNICODE_SPACES[random(UNICODE_SPACES.length)]!.repeat(spaces.length - keep);
        });
        agreesWithParse(other.join('\n'));
      }
    }
    // The check has teeth: most written bodies are read here, not handed to yaml.
    expect(simple).toBeGreaterThan(100);
  });
});
