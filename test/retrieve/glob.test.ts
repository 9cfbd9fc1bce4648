import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/retrieve/patterns/glob.js';

describe('compileGlob follows ripgrep and gitignore', () => {
  it.each([
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/deep/b.ts', true],
    ['*.ts', 'src/b.tsx', false],
    ['b.ts', 'src/deep/b.ts', true],
    ['src/*.ts', 'src/b.ts', true],
    ['src/*.ts', 'src/deep/b.ts', false],
    ['src/*.ts', 'lib/src/b.ts', false],
    ['**/*.md', 'docs/a/b.md', true],
    ['*.@(ts|js)', 'src/a.js', true],
    ['*.ts', '.hidden/a.ts', true],
    ['.*', 'src/.env', true],
  ])('%s against %s: %s', (glob, path, expected) => {
    expect(compileGlob(glob, false)!(path)).toBe(expected);
  });

  it('matches hidden names only when asked', () => {
    expect(compileGlob('*', true)!('src/.env')).toBe(true);
  });
});
