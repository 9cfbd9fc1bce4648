import { describe, expect, it } from 'vitest';
import { createArgsValidator } from '../../../src/proxy/calls/args-validator.js';

const draft07 = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    message: { type: 'string' },
    n: { type: 'integer', minimum: 1 },
    opts: { type: 'object', properties: { deep: { type: 'boolean' } }, required: ['deep'] },
  },
  required: ['message'],
  additionalProperties: false,
};
const draft2020 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { a: { type: 'array', prefixItems: [{ type: 'string' }] } },
};

describe('createArgsValidator', () => {
  const validator = createArgsValidator();
  it.each([
    ['valid arguments', draft07, { message: 'hi', n: 2 }, []],
    ['a missing required argument', draft07, {}, [{ path: 'message', message: 'is required' }]],
    ['a wrong type', draft07, { message: 1 }, [{ path: 'message', message: 'must be string' }]],
    ['an unknown argument', draft07, { message: 'x', extra: 1 }, [{ path: '(root)', message: 'unknown argument "extra"' }]],
    ['a nested problem', draft07, { message: 'x', opts: {} }, [{ path: 'opts.deep', message: 'is required' }]],
    [
      'several problems at once',
      draft07,
      { n: 0 },
      [
        { path: 'message', message: 'is required' },
        { path: 'n', message: 'must be >= 1' },
      ],
    ],
    ['missing arguments as {}', draft07, undefined, [{ path: 'message', message: 'is required' }]],
    ['a 2020-12 schema', draft2020, { a: [1] }, [{ path: 'a.0', message: 'must be string' }]],
    ['null for an optional argument counts as not given', draft07, { message: 'x', n: null }, []],
    ['null for a required argument is still wrong', draft07, { message: null }, [{ path: 'message', message: 'must be string' }]],
    ['null inside an object is checked as it is', draft07, { message: 'x', opts: { deep: null } }, [{ path: 'opts.deep', message: 'must be boolean' }]],
  ])('%s', (_name, schema, args, issues) => {
    expect(validator(schema)(args)).toEqual(issues);
  });

  it('compiles each schema once', () => {
    expect(validator(draft07)).toBe(validator(draft07));
  });

  it('does not enforce a schema it cannot compile, and says so', () => {
    const skipped: string[] = [];
    const check = createArgsValidator((reason) => skipped.push(reason))({ type: 'object', properties: { a: { $ref: '#/nope' } } });
    expect(check({ a: 1 })).toEqual([]);
    expect(skipped).toHaveLength(1);
  });

  it('holds two schemas with the same $id each to its own, through one validator', () => {
    const skipped: string[] = [];
    const checkOf = createArgsValidator((reason) => skipped.push(reason));
    const counted = checkOf({ $id: 'https://example.com/args.json', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    const named = checkOf({ $id: 'https://example.com/args.json', type: 'object', properties: { s: { type: 'string' } }, required: ['s'] });
    expect(counted({})).toEqual([{ path: 'n', message: 'is required' }]);
    expect(named({})).toEqual([{ path: 's', message: 'is required' }]);
    expect(skipped).toEqual([]);
  });

  it("does not let one schema's $ref reach another schema's $id", () => {
    const skipped: string[] = [];
    const checkOf = createArgsValidator((reason) => skipped.push(reason));
    checkOf({ $id: 'https://example.com/lenient.json', type: 'object' });
    const check = checkOf({ type: 'object', properties: { a: { $ref: 'https://example.com/lenient.json' } } });
    expect(check({ a: 1 })).toEqual([]);
    expect(skipped).toEqual([expect.stringContaining("can't resolve reference https://example.com/lenient.json")]);
  });
});
