import { describe, expect, it } from 'vitest';
import { GrepLines, type GrepLine } from '../../src/retrieve/grep-lines.js';
import type { SearchMatch } from '../../src/retrieve/search.js';

/** x.txt: a foo1 b c d e foo2 foo3 f g h; y.txt: foo4 z. What rg -n -C N prints for foo, as lines. */
const X = ['a', 'foo1', 'b', 'c', 'd', 'e', 'foo2', 'foo3', 'f', 'g', 'h'];
const Y = ['foo4', 'z'];

function matches(context: number): SearchMatch[] {
  const of = (path: string, lines: string[]) =>
    lines.flatMap((text, i) =>
      text.startsWith('foo')
        ? [
            {
              repo: 'code',
              path,
              line: i + 1,
              text,
              ...(context > 0 ? { before: lines.slice(Math.max(0, i - context), i), after: lines.slice(i + 1, i + 1 + context) } : {}),
            },
          ]
        : [],
    );
  return [...of('x.txt', X), ...of('y.txt', Y)];
}

const shown = (lines: GrepLine[]) =>
  lines.map((l) => (l.kind === 'separator' ? '--' : `${l.path}${l.kind === 'match' ? ':' : '-'}${l.line}${l.kind === 'match' ? ':' : '-'}${l.text}`));

function print(context: number): string[] {
  const grep = new GrepLines();
  return shown([...matches(context).flatMap((m) => grep.add(m)), ...grep.finish()]);
}

describe('GrepLines prints as rg -n -C does', () => {
  it.each([
    [0, ['x.txt:2:foo1', 'x.txt:7:foo2', 'x.txt:8:foo3', 'y.txt:1:foo4']],
    [1, ['x.txt-1-a', 'x.txt:2:foo1', 'x.txt-3-b', '--', 'x.txt-6-e', 'x.txt:7:foo2', 'x.txt:8:foo3', 'x.txt-9-f', '--', 'y.txt:1:foo4', 'y.txt-2-z']],
    [
      2,
      [
        'x.txt-1-a',
        'x.txt:2:foo1',
        'x.txt-3-b',
        'x.txt-4-c',
        'x.txt-5-d',
        'x.txt-6-e',
        'x.txt:7:foo2',
        'x.txt:8:foo3',
        'x.txt-9-f',
        'x.txt-10-g',
        '--',
        'y.txt:1:foo4',
        'y.txt-2-z',
      ],
    ],
  ])('-C %d', (context, expected) => {
    expect(print(context)).toEqual(expected);
  });
});
