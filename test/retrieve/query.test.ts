import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../src/retrieve/patterns/query.js';

describe('compileQuery', () => {
  it('says "Invalid regular expression" once, with V8\'s reason', () => {
    let message = '';
    try {
      compileQuery({ query: 'a(', regex: true, ignoreCase: false });
    } catch (error) {
      message = (error as Error).message;
      expect(error).toMatchObject({ code: 'QUERY_INVALID' });
    }
    expect(message).toMatch(/^Invalid regular expression: \/a\(\/u: /);
    expect(message.match(/Invalid regular expression/g)).toHaveLength(1);
  });

  it.each([
    // [query, regex, ignore case, may backtrack without bound (so serve searches it in a worker)]
    ['createServer', false, false, false],
    ['createserver', false, true, false], // V8's linear engine refuses every i-flag expression, but a literal cannot backtrack
    ['(a+)+$', false, true, false], // a literal, escaped
    ['ÇA VA', false, true, false],
    ['\\w+Expression\\(', true, false, false],
    ['\\w+expression\\(', true, true, true],
    ['(e)\\1', true, false, true],
    ['\\p{Lu}x', true, false, true],
  ])('%j (regex %s, ignore case %s) may backtrack: %s', (query, regex, ignoreCase, expected) => {
    expect(compileQuery({ query, regex, ignoreCase }).backtracks === true).toBe(expected);
  });
});
