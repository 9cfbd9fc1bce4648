import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstCandidateLine } from '../../src/retrieve/patterns/first-candidate.js';
import { LONG_LINE, longLineTest } from '../../src/retrieve/patterns/bounded.js';
import { countNewlines, lineText, regexMatcher } from '../../src/retrieve/patterns/line-matcher.js';
import { compileQuery } from '../../src/retrieve/patterns/query.js';

/** The reference: every line (without its \r) decoded and tested on its own, as `path:line:text`. */
function reference(bytes: Buffer, source: string, flags: string): string[] {
  const re = new RegExp(source, flags);
  const out: string[] = [];
  let start = 0;
  for (let n = 1; start < bytes.length; n++) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    const text = lineText(bytes, { start, end });
    if (re.test(text)) out.push(`${n}:${text}`);
    start = end + 1;
  }
  return out;
}

function found(bytes: Buffer, query: string, ignoreCase = false): string[] {
  const { matcher } = compileQuery({ query, regex: true, ignoreCase });
  return matcher(bytes, bytes.length).map((h) => `${countNewlines(bytes, 0, h.start) + 1}:${lineText(bytes, h)}`);
}

const dates = 'no date here\n2024-01-02T10:00 first\nplain\r\nsecond 1999-12-31T\n';
// Invalid UTF-8 (a lone continuation byte, a cut sequence) before the match: lines still count alike.
const broken = Buffer.concat([Buffer.from([0x61, 0x80, 0x62, 0x0a, 0xe2, 0x82, 0x0a]), Buffer.from('ü 2024-01-02T\nend')]);

describe('a regular expression without a literal finds what line-by-line testing finds', () => {
  it.each([
    ['dates', Buffer.from(dates), '[0-9]{4}-[0-9]{2}-[0-9]{2}T'],
    ['^ and $ at line edges (and before a \\r)', Buffer.from('ab\r\nxab\nab x\nab'), '^ab$'],
    ['an empty line', Buffer.from('a\n\nb\n\n'), '^$'],
    ['\\b at a line edge', Buffer.from('word\nwordy\n w'), '\\bw[a-z]*\\b'],
    ['\\B at a line edge', Buffer.from('x.\n.\n..'), '\\.\\B'],
    ['a negated class that a newline would satisfy', Buffer.from('ab\nb\nxb'), '[^a]b'],
    ['\\s, which takes a newline in the whole text', Buffer.from('a\nb a b\n'), 'a\\sb'],
    ['multi-byte and broken UTF-8 before the match', broken, '[0-9]{4}-[0-9]{2}'],
    ['no match at all', Buffer.from('nothing\nat all\n'), '[0-9]{3}'],
    ['a match only on the last line, without a newline', Buffer.from('x\ny\n12'), '[0-9]+'],
  ])('%s', (_label, bytes, source) => {
    const expected = reference(bytes, source, '');
    expect(found(bytes, source)).toEqual(expected);
    if (source !== '[0-9]{3}') expect(expected.length).toBeGreaterThan(0);
  });
});

describe('firstCandidateLine', () => {
  const test = (re: RegExp) => (text: string) => re.test(text);
  it.each([
    // [text, expression (m flag), segment characters, the line whose start is expected (-1: none)]:
    // the first line of the first segment that matches (a segment of one character ends at its line's end)
    [dates, /[0-9]{4}-/m, 1000, 0],
    [dates, /[0-9]{4}-/m, 1, 1],
    [dates, /[0-9]{4}-/m, 4, 1],
    [dates, /31T/m, 4, 3],
    [dates, /^plain$/m, 4, 2],
    [dates, /zzz/m, 4, -1],
    ['', /^$/m, 4, -1],
    ['one line, no newline', /line/m, 3, 0],
  ])('%j %s in segments of %i characters: line %i', (text, re, segment, line) => {
    const bytes = Buffer.from(text);
    const at = firstCandidateLine(bytes, bytes.length, test(re), segment);
    expect(at < 0 ? -1 : countNewlines(bytes, 0, at)).toBe(line);
    if (at > 0) expect(bytes[at - 1]).toBe(10);
  });

  it('counts lines by bytes past broken UTF-8', () => {
    const at = firstCandidateLine(broken, broken.length, test(/[0-9]{4}/m), 1);
    expect(broken.subarray(at).toString().startsWith('ü 2024')).toBe(true);
  });
});

describe('the cost of a file without a match', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is one decoding of its text, not one per line', () => {
    const bytes = Buffer.from('a line without a date in it\n'.repeat(500));
    const decode = vi.spyOn(Buffer.prototype, 'toString');
    expect(found(bytes, '[0-9]{4}-[0-9]{2}-[0-9]{2}T')).toEqual([]);
    expect(decode.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('leaves a case-insensitive expression to line-by-line testing (V8 backtracks it without bound: backtracking-query.test.ts), which finds the same lines', () => {
    const dated = Buffer.from('x\nSome 2024-01-02T date\n');
    expect(found(dated, '[0-9]{4}-[0-9]{2}-[0-9]{2}t', true)).toEqual(reference(dated, '[0-9]{4}-[0-9]{2}-[0-9]{2}t', 'i'));
    expect(found(dated, '[0-9]{4}-[0-9]{2}-[0-9]{2}t', true)).toEqual(['2:Some 2024-01-02T date']);
  });

  it('leaves an expression with lookaround to line-by-line testing (the text around a line would change its answer)', () => {
    // foo(?!\s) holds at the end of the line "foo" but not before its newline in the whole text.
    const bytes = Buffer.from('foo\nfoo bar\n');
    expect(found(bytes, 'foo(?!\\s)')).toEqual(['1:foo']);
  });
});

describe('a long line (LONG_LINE characters or more) in a file tested whole', () => {
  afterEach(() => vi.restoreAllMocks());
  const long = 'x'.repeat(LONG_LINE + 10);

  it('is handed to the long-line test, never to the whole-text expression (under whose backtrack limit V8 moves to its slow linear engine)', () => {
    const re = /[a-z]+\d{5}/;
    const whole = new RegExp(re.source, 'm');
    const wholeText = vi.fn((text: string) => whole.test(text));
    const longLine = { chars: LONG_LINE, test: vi.fn(longLineTest(re)) };
    // A minified bundle's line: short words, short numbers, no match.
    const minified = 'var a1=b22;'.repeat(Math.ceil(LONG_LINE / 11) + 1);
    const bytes = Buffer.from(`short\n${minified}\nab12345\n`);
    const hits = regexMatcher(re, undefined, { longLine, wholeText })(bytes, bytes.length);
    expect(hits.map((h) => lineText(bytes, h))).toEqual(['ab12345']);
    expect(wholeText.mock.calls.map(([text]) => text.length).filter((n) => n >= LONG_LINE)).toEqual([]);
    expect(longLine.test.mock.calls.map(([text]) => text)).toContain(minified);
  });

  it.each([
    ['a long line that matches', `a\n${long}7\nb`, '[0-9]$'],
    ['a match past a long line that does not', `a\n${long}\nb 7\n`, '[0-9]'],
    ['$ before the \\r of a long CRLF line', `a\r\n${long}7\r\nb\r\n`, '7$'],
    ['an empty line just before a long line', `a\n\n${long}\n`, '^$'],
    ['a file that is one long line, without a newline', `${long}7`, '^x+7$'],
    ['a long line, multi-byte characters before it', `ü\n${'é'.repeat(LONG_LINE)}7\nü 7`, '[0-9]'],
    ['no match anywhere', `a\n${long}\nb\n`, '[0-9]'],
  ])('%s: the lines line-by-line testing finds', (_label, text, source) => {
    const bytes = Buffer.from(text);
    const expected = reference(bytes, source, '');
    expect(found(bytes, source)).toEqual(expected);
    if (_label !== 'no match anywhere') expect(expected.length).toBeGreaterThan(0);
  });
});
