import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../src/retrieve/query.js';

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
});
