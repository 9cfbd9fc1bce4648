import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';
import { sourceFiles } from '../helpers/source-files.js';
import { classShapes, declaredNames, moduleState, parseSource, type ClassShape, type ModuleState } from '../helpers/source-shape.js';

/**
 * Three checks of the shape of src/, read from its syntax trees: classes offer roles (public
 * members), module-level state is only what docs/ARCHITECTURE.md lists, and src/ speaks the
 * vocabulary of docs/ARCHITECTURE.md. One file, so that src/ is parsed once for the three: the
 * first parse of 2.4 MB of TypeScript in a process costs ~2.5 CPU-s (the parser's code is cold),
 * and as three files each paid it in its own worker. Only what each check reads is kept of a
 * parse, not the trees (all of src/ parsed holds ~60 MB).
 */

interface SourceFacts {
  file: string;
  shapes: ClassShape[];
  state: ModuleState[];
  names: string[];
}

let facts: SourceFacts[] | undefined;
/** What the checks read of each file of src/, its parse made once and dropped. */
function srcFiles(): SourceFacts[] {
  return (facts ??= sourceFiles(join(ROOT, 'src')).map((file) => {
    const source = parseSource(file, readFileSync(file, 'utf8'));
    return { file, shapes: classShapes(file, source), state: moduleState(file, source), names: declaredNames(file, source) };
  }));
}

// ---- Public members
/**
 * Classes offer roles, not thirty methods: no class in src/ has more than 20 public members
 * (methods, getters and setters, public fields). A class that needs more is split along its
 * seams, or named here with the reason it cannot be.
 */
const MAX_PUBLIC_MEMBERS = 20;

/** Each entry says why the class keeps more than the limit. */
const WIDER_BY_DESIGN: Record<string, string> = {};

describe('classShapes counts what a class offers', () => {
  it.each([
    ['methods and getters', 'class A { a() {} get b() { return 1; } set b(v) {} c = 1; }', ['a', 'b', 'c']],
    ['not private, protected or #private', 'class A { private a() {} protected b = 1; #c = 2; d() {} }', ['d']],
    ['not the constructor, but its public parameter properties', 'class A { constructor(readonly a: number, private b: number, c: number) {} }', ['a']],
    ['an overloaded method once', 'class A { f(a: string): void; f(a: number): void; f(a: unknown) {} }', ['f']],
    ['static members too', 'class A { static make() {} }', ['make']],
  ])('%s', (_what, text, expected) => {
    expect(classShapes('a.ts', text)[0]?.publicMembers).toEqual(expected);
  });

  it('finds classes anywhere in a file, named or not', () => {
    const shapes = classShapes('a.ts', 'export class A { a() {} }\nfunction f() { return class { b() {} c() {} }; }');
    expect(shapes.map((s) => [s.name, s.publicMembers.length])).toEqual([
      ['A', 1],
      ['(anonymous)', 2],
    ]);
  });
});

describe(`every class in src/ has at most ${MAX_PUBLIC_MEMBERS} public members`, () => {
  const shapes = srcFiles().flatMap(({ file, shapes }) => shapes.map((shape) => ({ ...shape, file: relative(ROOT, file) })));

  it('reads the classes of src/', () => expect(shapes.length).toBeGreaterThan(50));

  it('no class is wider, unless named with its reason', () => {
    const wide = shapes.filter((s) => s.publicMembers.length > MAX_PUBLIC_MEMBERS && !WIDER_BY_DESIGN[s.name]);
    expect(
      wide.map((s) => `${s.file}: ${s.name} has ${s.publicMembers.length} (${s.publicMembers.join(', ')})`),
      'split the class along its seams (roles), or name it in WIDER_BY_DESIGN with the reason',
    ).toEqual([]);
  });

  it('every exception is still needed', () => {
    for (const name of Object.keys(WIDER_BY_DESIGN)) {
      const shape = shapes.find((s) => s.name === name);
      expect(shape && shape.publicMembers.length > MAX_PUBLIC_MEMBERS, `${name} is within the limit now: remove it from the list`).toBe(true);
    }
  });
});

// ---- Module-level state
/**
 * Module-level mutable state lives only where docs/ARCHITECTURE.md lists it, under the heading
 * below: a table of `file`, the names, and why the state is the module's rather than a runtime's.
 * State that belongs to one runtime (one serve, one command) is the runtime's.
 */
const HEADING = '### Module-level state';

function listed(doc: string): Map<string, Set<string>> {
  const start = doc.indexOf(`\n${HEADING}`);
  if (start < 0) throw new Error(`docs/ARCHITECTURE.md has no "${HEADING}" section`);
  const section = doc.slice(start + HEADING.length + 1).split(/\n#{1,3} /)[0]!;
  const out = new Map<string, Set<string>>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const [file, names] = row
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    const names_ = [...names!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    out.set(file!.replaceAll('`', ''), new Set(names_));
  }
  return out;
}

describe('moduleState finds what a module keeps between calls', () => {
  it.each([
    ['a top-level let', 'let n = 0;', ['n']],
    ['a var', 'var v;', ['v']],
    ['a Map the module sets', 'const m = new Map(); export function f() { m.set(1, 2); }', ['m']],
    ['a WeakMap inside a record', 'const w = { a: new WeakMap() }; export function f(o: object) { w.a.set(o, 1); }', ['w']],
    ['an array pushed to', 'const q: number[] = []; export const f = () => q.push(1);', ['q']],
    ['an object whose field is assigned', 'const o = { n: 0 }; export function f() { o.n += 1; }', ['o']],
    ['an AsyncLocalStorage run', 'const s = new AsyncLocalStorage(); export const f = (g: () => void) => s.run(1, g);', ['s']],
    ['a collection handed to a helper that may fill it', 'const c = new WeakMap(); export const f = (o: object) => memo(c, o);', ['c']],
    ['not a constant table', 'const T = new Set(["a"]); export const has = (x: string) => T.has(x);', []],
    ['not a constant object read', 'const D = { a: 1 }; export const a = () => D.a;', []],
    ['not a local let', 'export function f() { let n = 0; n += 1; return n; }', []],
    ['not a method of the same name on another object', 'const m = new Map(); export function f(o: { m: Map<1, 1> }) { o.m.set(1, 1); return m.get(1); }', []],
  ])('%s', (_what, text, expected) => {
    expect(moduleState('a.ts', text).map((s) => s.name)).toEqual(expected);
  });
});

describe('module-level state in src/ is only what docs/ARCHITECTURE.md lists', () => {
  const allowed = listed(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
  const found = srcFiles().flatMap(({ file, state }) => state.map((s) => ({ ...s, file: relative(join(ROOT, 'src'), file) })));

  it('reads the list', () => expect(allowed.size).toBeGreaterThan(5));

  it('finds no state the list does not name', () => {
    const unlisted = found.filter((s) => !allowed.get(s.file)?.has(s.name));
    expect(
      unlisted.map((s) => `${s.file}: ${s.name} (${s.kind})`),
      `state of one runtime belongs to the runtime; state a module must keep is named in ARCHITECTURE.md's "${HEADING}" with why`,
    ).toEqual([]);
  });

  it('lists nothing that is gone', () => {
    const stale = [...allowed].flatMap(([file, names]) =>
      [...names].filter((name) => !found.some((s) => s.file === file && s.name === name)).map((name) => `${file}: ${name}`),
    );
    expect(stale).toEqual([]);
  });
});

// ---- The vocabulary
/**
 * One verb per act, with docs/ARCHITECTURE.md's vocabulary table as the source of truth: a row
 * whose word is one lowercase word reserves that word for the methods its cell names
 * (`Holder.word`). A class method or a function in src/ named exactly that word, and not named
 * by the row, uses the word for another act (a router's `dispatch`, a read's `forward` once did),
 * and fails here. Read from the code's syntax tree, not its text.
 */

interface Row {
  word: string;
  /** The `Holder.word` the row names. */
  holders: ReadonlySet<string>;
}

/** The vocabulary's rows, from the page's table under "## Vocabulary". Pure. */
function vocabularyRows(page: string): Row[] {
  const start = page.indexOf('\n## Vocabulary');
  const end = page.indexOf('\n## ', start + 1);
  const table = page
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| '));
  return table.slice(1).flatMap((line) => {
    const [word = '', means = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    if (!/^[a-z]+$/.test(word)) return [];
    const holders = [...means.matchAll(/`([A-Z]\w*)\.(\w+)`/g)].filter((m) => m[2] === word).map((m) => `${m[1]}.${m[2]}`);
    return [{ word, holders: new Set(holders) }];
  });
}

/** What uses a reserved word for another act: `where: name (word)`. Pure. */
function breaches(rows: readonly Row[], declared: readonly { where: string; names: readonly string[] }[]): string[] {
  const byWord = new Map(rows.map((row) => [row.word, row]));
  return declared.flatMap(({ where, names }) =>
    names.flatMap((name) => {
      const word = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
      const row = byWord.get(word);
      return row && !row.holders.has(name) ? [`${where}: ${name} (the table keeps "${word}" for ${[...row.holders].join(', ') || 'none'})`] : [];
    }),
  );
}

const PAGE = `
## Vocabulary

| word | means | where |
|---|---|---|
| client | the MCP client software at the other end | |
| dispatch | answer one downstream request (\`Dispatcher\`, its method table) | |
| forward | the hot path's call: \`Upstream.forward\`, \`RawForwarder.forward\` | |
| hot path | a call forwarded below the SDK | |

## Where state lives
`;

describe('the vocabulary rule', () => {
  it('reads the reserved words and who holds them', () => {
    expect(vocabularyRows(PAGE).map((r) => [r.word, [...r.holders]])).toEqual([
      ['client', []],
      ['dispatch', []],
      ['forward', ['Upstream.forward', 'RawForwarder.forward']],
    ]);
  });

  it.each([
    ['a holder the row names', 'class Upstream { forward() {} }', []],
    [
      'a method using the word for another act',
      'class ReadThrough { forward() {} }',
      ['f.ts: ReadThrough.forward (the table keeps "forward" for Upstream.forward, RawForwarder.forward)'],
    ],
    [
      'a word the table keeps for none',
      'class CallRouter { private async dispatch() {} }',
      ['f.ts: CallRouter.dispatch (the table keeps "dispatch" for none)'],
    ],
    ['a function of that name', 'export function dispatch() {}', ['f.ts: dispatch (the table keeps "dispatch" for none)']],
    ['a longer name that starts with the word', 'class CallRouter { dispatchLater() {} forwarded() {} }', []],
    ['a property, not a method', 'class Carrier { forward = () => {} }', []],
    ['a word of no row', 'class A { run() {} }', []],
  ])('%s', (_label, code, expected) => {
    expect(breaches(vocabularyRows(PAGE), [{ where: 'f.ts', names: declaredNames('f.ts', code) }])).toEqual(expected);
  });
});

describe('src/ speaks the vocabulary of docs/ARCHITECTURE.md', () => {
  it('uses each reserved word for its act only', () => {
    const rows = vocabularyRows(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
    expect(rows.map((r) => r.word)).toEqual(expect.arrayContaining(['call', 'dispatch', 'forward', 'send', 'find']));
    const declared = srcFiles().map(({ file, names }) => ({ where: relative(ROOT, file), names }));
    expect(breaches(rows, declared)).toEqual([]);
  });
});
