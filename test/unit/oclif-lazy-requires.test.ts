import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAZY_REQUIRES, lazyRequire, withLazyRequires } from '../../scripts/oclif-lazy-requires.mjs';

const oclifRoot = dirname(createRequire(import.meta.url).resolve('@oclif/core/package.json'));

describe("oclif's rarely used requires, made lazy by the build", () => {
  it('requires on first use, once per read, and gives the same value', () => {
    const required: string[] = [];
    const fakeRequire = (name: string) => (required.push(name), { glob: `glob of ${name}` });
    const made = new Function('require', `${lazyRequire('const t_1 = require("tinyglobby");', 'glob')} return t_1;`)(fakeRequire) as { glob: string };
    expect(required).toEqual([]);
    expect(made.glob).toBe('glob of tinyglobby');
    expect(required).toEqual(['tinyglobby']);
  });

  it('keeps __importDefault around the require', () => {
    expect(lazyRequire('const e_1 = __importDefault(require("ejs"));', 'default')).toBe(
      'const e_1 = { get default() { return (__importDefault(require("ejs"))).default; } };',
    );
  });

  it.each(Object.keys(LAZY_REQUIRES))('applies to the installed @oclif/core/%s, which reads the binding only by that name', (rel) => {
    const source = readFileSync(join(oclifRoot, rel), 'utf8');
    const built = withLazyRequires(rel, source);
    for (const [line] of LAZY_REQUIRES[rel]!) expect([built.includes(line), source.includes(line)]).toEqual([false, true]);
  });

  it('leaves other files alone', () => {
    expect(withLazyRequires('lib/other.js', 'const tinyglobby_1 = require("tinyglobby");')).toBe('const tinyglobby_1 = require("tinyglobby");');
  });

  it('fails the build when a new oclif dropped the line or reads the binding another way', () => {
    expect(() => withLazyRequires('lib/config/plugin.js', 'nothing')).toThrow(/no longer has/);
    const other = 'const tinyglobby_1 = require("tinyglobby");\n(0, tinyglobby_1.glob)(x); tinyglobby_1.globSync(y);';
    expect(() => withLazyRequires('lib/config/plugin.js', other)).toThrow(/other than as \.glob/);
    expect(() => withLazyRequires('lib/config/plugin.js', 'const tinyglobby_1 = require("tinyglobby");\nf(tinyglobby_1);')).toThrow(/other than/);
  });
});
