import { describe, expect, it } from 'vitest';
import { matchesIn, type Wanted } from '../../src/retrieve/file-search.js';
import { GrepLines, type GrepLine } from '../../src/retrieve/grep-lines.js';
import { literalMatcher } from '../../src/retrieve/patterns/line-matcher.js';
import { literalParts } from '../../src/retrieve/patterns/match-parts.js';
import { contextSides, WHOLE_LINES, type LineShape, type SearchMatch } from '../../src/retrieve/patterns/match-shape.js';
import { compileQuery } from '../../src/retrieve/patterns/query.js';

describe('contextSides: -B and -A override only their own side of -C', () => {
  it.each([
    [{}, { before: 0, after: 0 }],
    [{ context: 2 }, { before: 2, after: 2 }],
    [{ after_context: 1 }, { before: 0, after: 1 }],
    [{ before_context: 3 }, { before: 3, after: 0 }],
    [
      { context: 2, after_context: 1 },
      { before: 2, after: 1 },
    ],
    [
      { context: 2, before_context: 0 },
      { before: 0, after: 2 },
    ],
    [
      { context: 1, before_context: 4, after_context: 3 },
      { before: 4, after: 3 },
    ],
  ])('%j', (asked, sides) => {
    expect(contextSides(asked)).toEqual(sides);
  });
});

/** lines 1-9: foo a b foo foo c d e foo (matches on 1, 4, 5, 9). */
const TEXT = Buffer.from(['foo', 'a', 'b', 'foo', 'foo', 'c', 'd', 'e', 'foo'].join('\n') + '\n');
const where = { repo: 'code', path: 'code/t.txt' };

function shaped(shape: Partial<LineShape>, room = 100): { wanted: Wanted; found: SearchMatch[] } {
  const found: SearchMatch[] = [];
  const wanted = matchesIn(TEXT, TEXT.length, 0, where, literalMatcher(Buffer.from('foo')), { ...WHOLE_LINES, ...shape }, room, found);
  return { wanted, found };
}

const print = (matches: SearchMatch[]): string[] => {
  const grep = new GrepLines();
  return [...matches.flatMap((m) => grep.add(m)), ...grep.finish()].map((l: GrepLine) =>
    l.kind === 'separator' ? '--' : `${l.line}${l.kind === 'match' ? ':' : '-'}${l.text}`,
  );
};

describe('matchesIn with a shape', () => {
  it('takes asymmetric context, cut at the edges of the text', () => {
    const { found } = shaped({ before: 2, after: 1 });
    expect(found.map((m) => [m.line, m.before, m.after])).toEqual([
      [1, [], ['a']],
      [4, ['a', 'b'], ['foo']],
      [5, ['b', 'foo'], ['c']],
      [9, ['d', 'e'], []],
    ]);
  });

  it('gives no context arrays without context (rg prints no -- then)', () => {
    expect(shaped({}).found[0]).toEqual({ ...where, line: 1, text: 'foo' });
  });

  it.each([
    // maxCount, after, the lines taken, the after-context lines that match too, what the file wants
    [1, 0, [1], undefined, 'full'],
    [2, 0, [1, 4], undefined, 'full'],
    [2, 1, [1, 4], [5], 'full'],
    [1, 4, [1], [4, 5], 'full'],
    [3, 3, [1, 4, 5], undefined, 'full'], // 9 is past 5 + 3
    [4, 0, [1, 4, 5, 9], undefined, 'full'],
    [5, 0, [1, 4, 5, 9], undefined, 'more'],
    [0, 2, [], undefined, 'full'],
  ] as const)(
    "-m %d -A %d: the first matching lines, and the later matches within the last one's after-context",
    (maxCount, after, lines, trailing, wanted) => {
      const out = shaped({ maxCount, after });
      expect(out.wanted).toBe(wanted);
      expect(out.found.map((m) => m.line)).toEqual(lines);
      expect(out.found.at(-1)?.after_matches).toEqual(trailing);
    },
  );

  it('says cut when the room, not -m, stops it', () => {
    expect(shaped({ maxCount: 3 }, 2).wanted).toBe('cut');
    expect(shaped({ maxCount: 2 }, 2).wanted).toBe('full');
  });

  it('gives -o parts of the match line and of the context lines that hold any', () => {
    const { found } = shaped({ before: 1, after: 1, parts: literalParts('o') });
    expect(found[1]).toMatchObject({ line: 4, matched: ['o', 'o'], context_matched: { '5': ['o', 'o'] } });
    expect(found[0]!.context_matched).toBeUndefined(); // line 2 ("a") holds none
  });
});

describe('GrepLines prints shaped matches as rg does', () => {
  it.each([
    ['-B 2 -A 1', { before: 2, after: 1 }, ['1:foo', '2-a', '3-b', '4:foo', '5:foo', '6-c', '7-d', '8-e', '9:foo']],
    ['-A 1', { after: 1 }, ['1:foo', '2-a', '--', '4:foo', '5:foo', '6-c', '--', '9:foo']],
    ['-B 1', { before: 1 }, ['1:foo', '--', '3-b', '4:foo', '5:foo', '--', '8-e', '9:foo']],
    ['-m 1 -A 4', { maxCount: 1, after: 4 }, ['1:foo', '2-a', '3-b', '4:foo', '5:foo']],
    ['-m 2 -A 1', { maxCount: 2, after: 1 }, ['1:foo', '2-a', '--', '4:foo', '5:foo']],
    ['-o -A 1', { after: 1, parts: literalParts('o') }, ['1:o', '1:o', '2-a', '--', '4:o', '4:o', '5:o', '5:o', '6-c', '--', '9:o', '9:o']],
  ] as const)('%s', (_label, shape, expected) => {
    expect(print(shaped(shape).found)).toEqual(expected);
  });

  it('-o -v: a line -v chose prints whole, a context line prints its parts as context', () => {
    const { matcher, parts } = compileQuery({ query: 'foo', regex: false, ignoreCase: false, invert: true });
    const found: SearchMatch[] = [];
    matchesIn(TEXT, TEXT.length, 0, where, matcher, { ...WHOLE_LINES, before: 1, after: 0, parts }, 100, found);
    expect(print(found)).toEqual(['1-foo', '2:a', '3:b', '--', '5-foo', '6:c', '7:d', '8:e']);
  });
});
