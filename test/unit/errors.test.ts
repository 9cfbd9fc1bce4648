import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { cliWords } from '../../src/cli/tool-runner.js';
import { ERROR_CODES, errorObject, exitCodeFor, field, isErrorCode, MCP_WORDS, ToolError } from '../../src/core/errors.js';
import { parseInput } from '../../src/core/schema.js';
import { defineTool, READ_ONLY } from '../../src/tool/define.js';
import { ROOT } from '../helpers/cli.js';

describe('the error vocabulary', () => {
  it('is one closed list, each code with a meaning, an exit code and a hint', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z_]+$/);
      expect(info.meaning.length, code).toBeGreaterThan(10);
      expect(info.hint.length, code).toBeGreaterThan(5);
      expect([1, 2]).toContain(info.exit);
    }
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    expect(isErrorCode('PATH_OUTSIDE_ROOT')).toBe(false); // the real one is PATH_OUT_OF_ROOT
    expect(isErrorCode('toString')).toBe(false);
  });

  it('lists only codes that something raises', () => {
    const sources = readdirSync(join(ROOT, 'src'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && f !== join('core', 'errors.ts'))
      .map((f) => readFileSync(join(ROOT, 'src', f), 'utf8'))
      .join('\n');
    const unused = Object.keys(ERROR_CODES).filter((code) => !sources.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it('is documented in docs/reference/errors.md, code for code, with the same exit codes', () => {
    const reference = readFileSync(join(ROOT, 'docs/reference/errors.md'), 'utf8');
    const rows = [...reference.matchAll(/^\| `([A-Z_]+)` \| ([12]) \| /gm)].map((m) => [m[1], Number(m[2])]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.exit]));
  });

  it.each([
    ['INVALID_INPUT', 2],
    ['VALIDATION_ERROR', 2],
    ['LIMIT_INVALID', 2], // a bad flag value is bad usage, whatever its code
    ['PATH_OUT_OF_ROOT', 1],
    ['NOT_FOUND', 1],
    ['INTERNAL', 1],
  ] as const)('%s exits %d', (code, exit) => {
    expect(exitCodeFor({ code })).toBe(exit);
  });

  it('an unexpected throw is INTERNAL, and says so', () => {
    expect(errorObject(new TypeError('x is undefined'))).toMatchObject({
      code: 'INTERNAL',
      message: 'Unexpected error: x is undefined',
      hint: expect.stringMatching(/bug in mcpkit/),
    });
  });
});

describe("fields in each front end's words", () => {
  const tool = defineTool({
    name: 'demo_add',
    group: 'demo',
    command: { id: 'demo add', args: ['name'], flagNames: { headers: 'header' }, examples: ['mcpkit demo add x'] },
    title: 'demo',
    description: 'demo',
    input: z.strictObject({ name: z.string(), headers: z.array(z.string()).optional(), max_rows: z.int().min(1).max(9).optional() }),
    annotations: READ_ONLY,
    run: async () => null,
  });
  const error = new ToolError('INVALID_INPUT', `Give ${field('name')} and ${field('headers')} or ${field('max_rows')}.`, { hint: `Try ${field('max_rows')}.` });
  const cases: [string, ReturnType<typeof cliWords>, string, string][] = [
    ['over MCP: the field name', MCP_WORDS, 'Give "name" and "headers" or "max_rows".', 'Try "max_rows".'],
    ['in a terminal: the flag, or the argument', cliWords('demo add', tool), 'Give NAME and --header or --max-rows.', 'Try --max-rows.'],
  ];
  it.each(cases)('%s', (_what, words, message, hint) => {
    expect(errorObject(error, words)).toMatchObject({ message, hint });
  });

  it('bad arguments point at the schema over MCP and at --help in a terminal', () => {
    let thrown: unknown;
    try {
      parseInput('demo_add', tool.input, { name: 'x', max_rows: 20 });
    } catch (e) {
      thrown = e;
    }
    expect(errorObject(thrown)).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('"max_rows": '),
      hint: expect.stringContaining('input schema'),
    });
    expect(errorObject(thrown, cliWords('demo add', tool))).toMatchObject({
      message: expect.stringContaining('--max-rows: '),
      hint: 'Run "mcpkit demo add --help".',
    });
  });

  it('a field with a code of its own keeps it (retrieve: limit -> LIMIT_INVALID)', () => {
    const schema = z.strictObject({ limit: z.int().max(5), q: z.string() });
    expect(() => parseInput('t', schema, { limit: 9, q: 'x' }, { fieldCodes: { limit: 'LIMIT_INVALID' } })).toThrow(
      expect.objectContaining({ code: 'LIMIT_INVALID' }),
    );
    // Problems with other fields too: the general code.
    expect(() => parseInput('t', schema, { limit: 9 }, { fieldCodes: { limit: 'LIMIT_INVALID' } })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});
