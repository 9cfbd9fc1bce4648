import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ENGINE_OPTIONS, GENERATED, metaValidatorsModule } from '../../scripts/ajv-meta.mjs';
import { compileJsonSchema, dialectOf, ENGINE_OPTIONS as COMPILED_WITH } from '../../src/proxy/calls/json-schema-engine.js';

const require = createRequire(import.meta.url);
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

describe('the meta-schema validators compiled at build time', () => {
  it('are what scripts/ajv-meta.mjs writes from the installed ajv (run it after updating ajv)', () => {
    expect(readFileSync(GENERATED, 'utf8') === metaValidatorsModule()).toBe(true);
  });

  it('were generated under the options every engine compiles with (else a schema is judged under others)', () => {
    expect(COMPILED_WITH).toEqual(ENGINE_OPTIONS);
  });

  it.each([
    ['no $schema', {}, '07'],
    ['draft-07', { $schema: DRAFT_07 }, '07'],
    ['2019-09', { $schema: DRAFT_2019 }, '2019'],
    ['2020-12', { $schema: DRAFT_2020 }, '2020'],
    ['2020-12 without https', { $schema: 'http://json-schema.org/draft/2020-12/schema#' }, '2020'],
    ['an unknown dialect', { $schema: 'http://json-schema.org/draft-04/schema#' }, '07'],
    ['a $schema that is no string', { $schema: 2020 }, '07'],
  ])('read the dialect a schema declares: %s', (_name, schema, dialect) => {
    expect(dialectOf(schema)).toBe(dialect);
  });

  /** What ajv says of a schema when it compiles it checking it against its meta-schema as it runs (as compileJsonSchema did before). */
  function ajvVerdict(schema: Record<string, unknown>): string | undefined {
    const dialect = dialectOf(schema);
    const Ajv = require(dialect === '2020' ? 'ajv/dist/2020' : dialect === '2019' ? 'ajv/dist/2019' : 'ajv').default;
    const { $schema: _ignored, ...rest } = schema;
    try {
      new Ajv(ENGINE_OPTIONS).compile(rest);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }
  function ourVerdict(schema: Record<string, unknown>): string | undefined {
    try {
      compileJsonSchema(schema);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  const bad = {
    type: 'object',
    properties: { a: { type: 'strin' }, b: { minLength: -1 }, c: { enum: [1, 1] }, d: { required: 'x' }, e: { items: 3 } },
    required: ['a', 'a'],
  };
  const good = { type: 'object', properties: { a: { type: 'string', maxLength: 3 }, b: { enum: [1, 2] }, c: { $ref: '#/properties/a' } }, required: ['a'] };
  it.each([
    ['draft-07', DRAFT_07],
    ['2019-09', DRAFT_2019],
    ['2020-12', DRAFT_2020],
  ])('say of a schema in %s what ajv says as it runs, word for word', (_name, $schema) => {
    for (const schema of [
      good,
      bad,
      { ...good, $defs: { x: { type: 1 } } },
      { ...good, properties: { p: { $dynamicRef: 5 } } },
      { type: ['string', 'string'] },
    ]) {
      expect(ourVerdict({ $schema, ...schema })).toBe(ajvVerdict({ $schema, ...schema }));
    }
    expect(ourVerdict({ $schema, ...bad })).toMatch(/^schema is invalid: .*data\/properties\/a\/type must be equal to one of the allowed values/);
  });
});
