import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IgnoreRules } from '../../src/retrieve/patterns/ignore-rules.js';
import { tempDir } from '../helpers/cli.js';

function tree(files: Record<string, string>): string {
  const root = tempDir('mcpkit-ignore-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('IgnoreRules (git semantics)', () => {
  const root = tree({
    '.gitignore': '*.log\n/build\ndist/\nsecret*\n!secret-ok.txt\n',
    '.git/info/exclude': 'local-only.txt\n',
    'sub/.gitignore': '!keep.log\n*.tmp\n/anchored.txt\n',
    'sub/deeper/.gitignore': 'keep.log\n',
  });
  const rules = new IgnoreRules(root);

  it.each([
    ['app.log', false, true],
    ['src/app.log', false, true],
    ['build', true, true],
    ['src/build', true, false], // anchored to the root folder
    ['dist', true, true],
    ['dist', false, false], // dist/ matches folders only
    ['src/dist', true, true],
    ['secret.txt', false, true],
    ['secret-ok.txt', false, false], // negated
    ['local-only.txt', false, true], // .git/info/exclude
    ['sub/keep.log', false, false], // a deeper .gitignore re-includes
    ['sub/other.log', false, true],
    ['sub/x.tmp', false, true],
    ['x.tmp', false, false], // sub's rules stay in sub
    ['sub/anchored.txt', false, true],
    ['sub/more/anchored.txt', false, false],
    ['sub/deeper/keep.log', false, true], // and a deeper one ignores again: last match wins
    ['APP.LOG', false, false], // case-sensitive, like git on Linux
    ['readme.md', false, false],
  ])('%s (dir: %s) ignored: %s', (path, isDir, expected) => {
    expect(rules.ignored(path, isDir)).toBe(expected);
  });
});
