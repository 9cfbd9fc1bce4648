import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oclifHookSources } from '../../scripts/oclif-hook-sources.mjs';
import { ROOT } from '../helpers/root.js';

// The script forms hold the hook files package.json names (scripts/build-scripts.mjs): read from
// there, not listed twice, so a hook added to package.json is in the scripts as in the split build.
describe('the hook sources the script forms bundle', () => {
  it.each([
    ['a path', { hooks: { init: './dist/cli/a' } }, ['src/cli/a.ts']],
    ['a path with .js, without ./', { hooks: { init: 'dist/cli/a.js' } }, ['src/cli/a.ts']],
    ['a list', { hooks: { init: ['./dist/cli/a', './dist/hooks/b'] } }, ['src/cli/a.ts', 'src/hooks/b.ts']],
    ['{ target }', { hooks: { postrun: [{ target: './dist/cli/c', identifier: 'other' }] } }, ['src/cli/c.ts']],
    ['one file for two events', { hooks: { init: './dist/cli/a', prerun: './dist/cli/a' } }, ['src/cli/a.ts']],
    ['no hooks', {}, []],
    ['no oclif section', undefined, []],
  ] as const)('%s', (_what, oclif, sources) => {
    expect(oclifHookSources(oclif as never)).toEqual(sources);
  });

  it.each([['./lib/hook'], ['./node_modules/x/hook'], ['/abs/dist/x']])('a target outside dist/ fails the build: %s', (target) => {
    expect(() => oclifHookSources({ hooks: { init: target } })).toThrow(/not a file of dist\//);
  });

  it("mcpkit's own package.json: every hook it names", () => {
    const { oclif } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { oclif: { hooks: Record<string, string> } };
    expect(oclifHookSources(oclif).sort()).toEqual(
      Object.values(oclif.hooks)
        .map((t) => `src/${t.replace(/^\.\/dist\//, '')}.ts`)
        .sort(),
    );
  });
});
