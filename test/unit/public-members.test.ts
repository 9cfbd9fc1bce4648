import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/source-files.js';
import { ROOT } from '../helpers/root.js';
import { classShapes } from '../helpers/source-shape.js';

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
  const shapes = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
    classShapes(file, readFileSync(file, 'utf8')).map((shape) => ({ ...shape, file: relative(ROOT, file) })),
  );

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
