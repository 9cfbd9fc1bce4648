import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { boundedRegExp, linearGlobRegExp, longLineTest, stripLookaheads } from '../../src/retrieve/patterns/bounded.js';

/**
 * The CPU time `work` takes, in ms: what these tests bound is the work an expression costs, which
 * a loaded machine's waits (the suite beside it) do not change, as they change the wall clock.
 */
function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

describe('stripLookaheads', () => {
  it.each([
    ['^(?:(?!\\.)(?=.)[^/]*?\\.ts)$', '^(?:[^/]*?\\.ts)$'],
    ['a(?!b(c))d', 'ad'],
    ['[(?!]x', '[(?!]x'], // inside a class it is text
    ['\\(?!x', '\\(?!x'], // an escaped paren is text
    ['(?=.', undefined], // unbalanced
  ])('%s -> %s', (source, expected) => {
    expect(stripLookaheads(source)).toBe(expected);
  });
});

describe('globs and regular expressions in linear time', () => {
  // Paths as the walk gives them: no "." or ".." segments, no empty ones, dotfiles only when hidden.
  const paths = ['a.ts', 'src/a.ts', 'src/deep/b.ts', 'src/index.js', 'docs/x.md', 'docs/a/b/c.md', 'README.md', 'src/.hidden.ts', '.github/ci.yml', 'x/y/z'];
  it.each([['**/*.ts'], ['src/**'], ['*.{md,ts}'], ['docs/**/*.md'], ['**/index.{ts,js}'], ['src/*.ts'], ['[a-c]*'], ['?.ts']])(
    '%s matches what picomatch matches',
    (glob) => {
      for (const dot of [false, true]) {
        const walked = dot ? paths : paths.filter((p) => !p.split('/').some((s) => s.startsWith('.')));
        const ours = linearGlobRegExp(picomatch.makeRe(glob, { dot }))!;
        expect(ours, glob).toBeDefined();
        expect(walked.filter((p) => ours.test(p))).toEqual(walked.filter((p) => picomatch(glob, { dot })(p)));
      }
    },
  );

  it('a catastrophic glob and regular expression take milliseconds', () => {
    const glob = linearGlobRegExp(picomatch.makeRe('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b'))!;
    const re = boundedRegExp('(a+)+$', 'u').re;
    const spent = cpuMs(() => {
      expect(glob.test('a'.repeat(200))).toBe(false);
      expect(re.test(`${'a'.repeat(10_000)}!`)).toBe(false);
    });
    expect(spent).toBeLessThan(500);
  });

  it.each([
    ['(a+)+$', false],
    ['\\w+Expression\\(', false],
    ['(a*)*\\1b', true], // a backreference
    ['(?<=foo)bar', true], // lookbehind
    ['foo(?!bar)', true], // lookahead
    ['\\p{Lu}x', true], // means something else without the u flag, which the linear engine cannot take
    ['\\u{41}', true],
    ['\\\\p{Lu}', false], // an escaped backslash, then the text p{Lu}
  ])('says whether %s may backtrack without bound (%s)', (source, backtracks) => {
    expect(boundedRegExp(source, 'u').backtracks).toBe(backtracks);
  });

  it('keeps what \\p{..} and \\u{..} mean', () => {
    expect(boundedRegExp('\\p{Lu}x', 'u').re.test('Ax')).toBe(true);
    expect(boundedRegExp('\\p{Lu}x', 'u').re.test('p{Lu}x')).toBe(false);
    expect(boundedRegExp('\\u{41}', 'u').re.test('A')).toBe(true);
    expect(boundedRegExp('\\\\p{Lu}', 'u').re.test('\\p{Lu}')).toBe(true);
  });
});

describe('longLineTest', () => {
  // An ordinary expression backtracks about once per character; past V8's 50,000 it moves to the
  // linear engine, which takes seconds on a 2 MB line (measured: 1.9 s against 20 ms).
  it('tests an ordinary expression on a 2 MB line in backtracking time, with the same answers', () => {
    const line = `${'someWord another, '.repeat(110_000)}fooExpression(x)`;
    const re = boundedRegExp('\\w+Expression\\(', 'u').re;
    const test = longLineTest(re);
    const spent = cpuMs(() => {
      expect(test(line)).toBe(true);
      expect(test(`${line.slice(0, -16)}foo Expression(x)`)).toBe(false);
    });
    expect(spent).toBeLessThan(600);
  });

  it('still moves a catastrophic expression to the linear engine', () => {
    const test = longLineTest(boundedRegExp('(a+)+$', 'u').re);
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect(test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(test(`${'a'.repeat(100_000)}`)).toBe(true);
    // ~40 ms each here, seconds on a loaded CI machine; backtracking would not end in hours.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('leaves the limit of other expressions as it was', () => {
    longLineTest(boundedRegExp('\\w+x', 'u').re)(`${'w '.repeat(40_000)}wx`);
    expect(cpuMs(() => expect(boundedRegExp('(b+)+$', 'u').re.test(`${'b'.repeat(10_000)}!`)).toBe(false))).toBeLessThan(500);
  });
});
