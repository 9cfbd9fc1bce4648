import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isLiteralName, withLiteralPluginNames } from '../../scripts/oclif-plugin-match.mjs';

// oclif matches with minimatch; the built loader must pick the same plugins.
const { minimatch } = createRequire(import.meta.url)('minimatch') as { minimatch: (p: string, w: string) => boolean };

/** The built findMatchingDependencies, run on a stand-in for oclif's code around the replaced call. */
function builtMatcher(): (dependencies: Record<string, string>, patterns: string[]) => string[] {
  const source = withLiteralPluginNames('return Object.keys(dependencies).filter((p) => patterns.some((w) => (0, minimatch_1.minimatch)(p, w)));');
  return new Function('minimatch_1', 'dependencies', 'patterns', source).bind(null, { minimatch }) as never;
}

const names = [
  '@oclif/plugin-help',
  '@oclif/plugin-autocomplete',
  '@oclif/plugin-*',
  '@oclif/*',
  'ajv',
  'a',
  'a/',
  'a//b',
  'a/b',
  'b',
  'a/../b',
  './a',
  '.a',
  'a.b',
  'A',
  '#a',
  '!a',
  'a+b',
  '+(a)',
  '@(a|b)',
  'a~b',
  'a_b',
  '',
  'plugin-{a,b}',
  'plugin-a',
  'plugin-b',
  'x?',
  'xy',
  '[ab]',
  'a/./b',
  'a\\b',
];

describe("the plugin name match built into oclif's loader", () => {
  it.each(names)('takes %j as a plain name only where minimatch matches it against itself alone among plain names', (pattern) => {
    if (!isLiteralName(pattern)) return;
    for (const name of names.filter(isLiteralName)) expect([name, minimatch(name, pattern)]).toEqual([name, name === pattern]);
  });

  it('calls the plain names of package.json plain, and leaves globs and odd paths to minimatch', () => {
    expect(['@oclif/plugin-help', 'ajv', 'a.b', 'a+b', 'a~b'].map(isLiteralName)).toEqual([true, true, true, true, true]);
    expect(['@oclif/*', 'x?', '[ab]', '#a', '!a', '+(a)', 'a//b', 'a/../b', './a', '.a', 'a/', '', 'a\\b'].filter(isLiteralName)).toEqual([]);
  });

  it('picks the same dependencies as minimatch for every pattern', () => {
    const dependencies = Object.fromEntries(names.map((n) => [n, '1.0.0']));
    const match = builtMatcher();
    for (const pattern of names) {
      expect([pattern, match(dependencies, [pattern])]).toEqual([pattern, names.filter((n) => minimatch(n, pattern))]);
    }
  });

  it('fails the build when a new oclif changed the code it replaces', () => {
    expect(() => withLiteralPluginNames('minimatch(p, w)')).toThrow(/no longer has/);
  });
});
