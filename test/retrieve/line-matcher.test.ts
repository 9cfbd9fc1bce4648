import { describe, expect, it } from 'vitest';
import { countNewlines, foldAscii, lineText, literalMatcher, regexMatcher, requiredLiteral } from '../../src/retrieve/patterns/line-matcher.js';

const text = 'alpha beta\nfoo(bar) and foo(baz)\r\n\nlast line foo\n';
const buf = Buffer.from(text);
const lines = (hits: { start: number; end: number }[]) => hits.map((h) => lineText(buf, h));

describe('requiredLiteral', () => {
  it.each([
    ['Expression\\(', 'Expression('],
    ['\\w+Expression\\(', 'Expression('],
    ['foo.*bar', 'foo'],
    ['colou?r', 'colo'],
    ['ab*c', undefined],
    ['a|b', undefined],
    ['(foo|bar)baz', 'baz'],
    ['(?:abc)d', 'abc'],
    ['x(abc)?y', undefined],
    ['(abc)+d', 'abc'],
    ['(?<!xy)foo', 'foo'],
    ['(?=ab)cd', 'cd'],
    ['(?<name>abc)d', 'abc'],
    ['\\p{Lu}ab', 'ab'],
    ['\\p{Lu}', undefined],
    ['\\u0041bc', 'bc'],
    ['a{2}bc', 'bc'],
    ['ab{0,2}cd', 'cd'],
    ['ab+cd', 'ab'],
    ['abc*?de', 'ab'],
    ['foo\\/bar', 'foo/bar'],
    ['a-b', 'a-b'],
    ['(a)\\1bc', 'bc'],
    ['[(|]xy', 'xy'],
    ['(?<![\\p{L}_])(?:foo)(?![\\p{L}_])', 'foo'],
    ['[abc]+def', 'def'],
    ['^import .* from', 'import '],
    ['x', undefined],
    ['\\d+', undefined],
  ])('%s -> %j', (source, expected) => {
    expect(requiredLiteral(source)).toBe(expected);
  });
});

describe('literalMatcher', () => {
  it('returns each matching line once, in order, without its newline or CR', () => {
    expect(lines(literalMatcher(Buffer.from('foo'))(buf, buf.length))).toEqual(['foo(bar) and foo(baz)', 'last line foo']);
  });
  it('finds nothing when absent and handles a last line without newline', () => {
    expect(literalMatcher(Buffer.from('zzz'))(buf, buf.length)).toEqual([]);
    const noEol = Buffer.from('one\ntwo foo');
    expect(literalMatcher(Buffer.from('foo'))(noEol, noEol.length).map((h) => lineText(noEol, h))).toEqual(['two foo']);
  });
  it('only looks at the first len bytes of a reused buffer', () => {
    const big = Buffer.alloc(64, 0x20);
    Buffer.from('a foo\nb').copy(big);
    big.write('foo', 40);
    expect(literalMatcher(Buffer.from('foo'))(big, 7).map((h) => lineText(big, h))).toEqual(['a foo']);
  });
});

describe('regexMatcher', () => {
  it('tests lines from `longLine.chars` characters on with `longLine.test`, shorter ones with the expression', () => {
    const tested: number[] = [];
    const longLine = { chars: 10, test: (text: string) => (tested.push(text.length), text.includes('x')) };
    const buf = Buffer.from('short x\nlong line x here\nlong line without\n');
    const hits = regexMatcher(/x/u, undefined, { longLine })(buf, buf.length);
    expect(hits.map((h) => lineText(buf, h))).toEqual(['short x', 'long line x here']);
    expect(tested).toEqual([16, 17]);
  });

  it.each([
    [/foo\(ba[rz]\)/, true, ['foo(bar) and foo(baz)']],
    [/^last/, false, ['last line foo']],
    [/^$/, false, ['']],
    [/ALPHA/i, false, ['alpha beta']],
  ])('%s (prefilter %s)', (re, prefilter, expected) => {
    const literal = prefilter ? Buffer.from(requiredLiteral(re.source)!) : undefined;
    expect(lines(regexMatcher(re, literal)(buf, buf.length))).toEqual(expected);
  });
});

describe('countNewlines', () => {
  it('counts line breaks between offsets', () => {
    expect(countNewlines(buf, 0, buf.length)).toBe(4);
    expect(countNewlines(buf, 0, 11)).toBe(1);
  });
});

describe('regexMatcher for a case-insensitive ASCII literal (latin1 fast path)', () => {
  const escape = (q: string) => q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** The reference: every line decoded as utf8 and tested on its own. */
  const reference = (text: string, q: string) =>
    text
      .split('\n')
      .map((l, i) => [i + 1, l.replace(/\r$/, '')] as const)
      .filter(([, l]) => new RegExp(escape(q), 'iu').test(l))
      .map(([n, l]) => `${n}:${l}`);
  const fast = (text: string, q: string) => {
    const buf = Buffer.from(text);
    const hits = regexMatcher(new RegExp(escape(q), 'iu'), undefined, { asciiLiteral: q })(buf, buf.length);
    return hits.map((h) => `${countNewlines(buf, 0, h.start) + 1}:${lineText(buf, h)}`);
  };
  it.each([
    ['plain ASCII', 'createServer(a)\nnothing\nCREATESERVER twice createserver\n', 'createserver'],
    ['non-ASCII elsewhere in the file', 'héllo wörld\nmake the Server\n日本語 server\n', 'server'],
    ['KELVIN SIGN folds to k', 'a \u212Aelvin b\nkelvin\n', 'kelvin'],
    ['LONG S folds to s', '\u017Ferver\nserver\n', 'server'],
    ['special letters that do not matter to the literal', '\u212A and \u017F\nabc\n', 'abc'],
    ['CRLF lines', 'one\r\nTwo needle\r\nthree\r\n', 'NEEDLE'],
    ['a match on the last line without a newline', 'x\ny needle', 'needle'],
    ['punctuation in the literal', 'call(a.b) here\ncall(a-b)\n', 'CALL(A.B)'],
    ['no match', 'nothing here\n', 'zzz'],
    ['non-ASCII letters next to the match (their bytes are not folded)', 'ÄNEEDLEä\nÀ needle É\nneedlé\n', 'needle'],
    ['letters just outside A-Z and a-z', '@[`{ AZaz\n@[`{ azaz\n', '@[`{ azaz'],
  ])('%s', (_label, text, q) => {
    expect(fast(text, q)).toEqual(reference(text, q));
  });
});

describe('foldAscii', () => {
  const reference = (bytes: Uint8Array) => Buffer.from(bytes.map((b) => (b >= 65 && b <= 90 ? b + 32 : b)));
  const every = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
  it.each([
    // [start, length]: every byte value, from offsets and lengths that are not multiples of four
    [0, 256],
    [1, 255],
    [3, 250],
    [64, 27],
    [0, 0],
    [90, 1],
  ])('lower-cases ASCII letters only, from byte %i for %i bytes', (start, length) => {
    const input = every.subarray(start, start + length);
    expect(foldAscii(input, length)).toEqual(reference(input));
  });

  it('folds only the first `len` bytes, and a larger text after a smaller one', () => {
    expect(foldAscii(Buffer.from('ABCDEFG'), 3).toString()).toBe('abc');
    const big = Buffer.from('Q'.repeat(100_003));
    expect(foldAscii(big, big.length).equals(Buffer.from('q'.repeat(100_003)))).toBe(true);
    expect(foldAscii(Buffer.from('XyZ'), 3).toString()).toBe('xyz');
  });

  it('folds a text larger than the scratch area it keeps (16 MiB) in one of its own', () => {
    const huge = Buffer.alloc(17 * 1024 * 1024 + 1, 'aB');
    const folded = foldAscii(huge, huge.length);
    expect(folded.length).toBe(huge.length);
    expect(folded.indexOf('B')).toBe(-1);
    expect(folded.subarray(-3).toString()).toBe(huge.subarray(-3).toString().toLowerCase());
    expect(foldAscii(Buffer.from('QQ'), 2).toString()).toBe('qq');
  });
});
