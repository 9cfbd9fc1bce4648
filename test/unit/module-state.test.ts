import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-files.js';
import { ROOT } from '../helpers/root.js';
import { moduleState } from '../helpers/source-shape.js';

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
  const found = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
    moduleState(file, readFileSync(file, 'utf8')).map((state) => ({ ...state, file: relative(join(ROOT, 'src'), file) })),
  );

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
