import { describe, expect, it } from 'vitest';
import { isGenerated, rankOrder, termStem, type RankInput } from '../../src/retrieve/smart-rank.js';

describe('termStem', () => {
  it.each([
    ['locked', 'lock'],
    ['edits', 'edit'],
    ['loading', 'load'],
    ['config', 'config'],
    ['class', 'class'], // -ss is not a plural
    ['uses', 'uses'], // "use" would be too short
    ['bed', 'bed'], // too short to lose a suffix
    ['quickly', 'quick'],
  ])('%s -> %s', (term, stem) => {
    expect(termStem(term)).toBe(stem);
  });
});

describe('isGenerated', () => {
  it.each([
    ['code/package-lock.json', 1000, 100, true],
    ['code/oclif.manifest.json', 1000, 100, true],
    ['code/yarn.lock', 1000, 100, true],
    ['code/web/app.min.js', 1000, 100, true],
    ['code/web/app.js.map', 1000, 100, true],
    ['code/dist/index.js', 1000, 100, true],
    ['code/test/__snapshots__/x.test.ts.snap', 1000, 100, true],
    ['code/web/bundle.js', 90_000, 3, true], // one long line: minified
    ['code/src/config/lock.ts', 4000, 148, false],
    ['docs/README.md', 30_000, 700, false],
    ['code/distance.ts', 1000, 50, false], // "dist" only as a folder
  ])('%s (%i bytes, %i lines) -> %s', (path, bytes, lines, generated) => {
    expect(isGenerated(path, bytes, lines)).toBe(generated);
  });
});

describe('rankOrder', () => {
  const file = (path: string, counts: number[], bytes = 4000, lines = 100, bestLineTerms = 1): RankInput => ({ path, counts, bytes, lines, bestLineTerms });
  const order = (files: RankInput[], terms: string[], total = 100) => rankOrder(files, terms, total).map((i) => files[i]!.path);

  it.each<[string, RankInput[], string[], string[]]>([
    [
      'a source file named for the question beats a long README and a manifest that mention every word',
      [
        file('README.md', [20, 6, 3], 40_000, 800, 2),
        file('oclif.manifest.json', [40, 10, 2], 90_000, 3000, 3),
        file('src/config/lock.ts', [4, 6, 24], 4000, 148, 2),
      ],
      ['config', 'edit', 'lock'],
      ['src/config/lock.ts', 'README.md', 'oclif.manifest.json'],
    ],
    [
      'a rare term weighs more than a common one',
      [file('a.ts', [2, 0]), file('b.ts', [0, 1]), file('c.ts', [1, 0]), file('d.ts', [1, 0])],
      ['common', 'rare'],
      ['b.ts', 'a.ts', 'c.ts', 'd.ts'],
    ],
    ['more terms on one line ranks higher', [file('a.ts', [1, 1], 4000, 100, 1), file('b.ts', [1, 1], 4000, 100, 2)], ['x', 'y'], ['b.ts', 'a.ts']],
    ['equal scores keep the walk order', [file('b.ts', [1]), file('a.ts', [1])], ['x'], ['b.ts', 'a.ts']],
    ['a generated file ranks below a written one holding less', [file('dist/app.js', [9]), file('src/app.ts', [2])], ['x'], ['src/app.ts', 'dist/app.js']],
  ])('%s', (_name, files, terms, expected) => {
    expect(order(files, terms, 10)).toEqual(expected);
  });
});
