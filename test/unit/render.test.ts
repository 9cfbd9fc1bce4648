import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { colorLevel } from '../../src/cli/terminal/color.js';
import { formatError } from '../../src/cli/terminal/output.js';
import { createRenderUi, renderGeneric, renderTable } from '../../src/cli/terminal/render.js';
import { errorObject, exitCodeFor, MCP_WORDS, ToolError } from '../../src/core/errors.js';

const plain = new Chalk({ level: 0 });
const ui = createRenderUi(plain);

describe('renderTable', () => {
  it('aligns columns under upper-case headers', () => {
    expect(
      renderTable(plain, [
        { name: 'a', n: 1 },
        { name: 'longer', n: 22 },
      ]),
    ).toBe('NAME    N\na       1\nlonger  22');
  });
  it('keeps the given column order and blanks missing cells', () => {
    expect(renderTable(plain, [{ a: 1, b: 2 }, { a: 3 }], ['b', 'a'])).toBe('B  A\n2  1\n   3');
  });
  it('folds newlines and clips long cells', () => {
    const out = renderTable(plain, [{ d: `line1\nline2 ${'x'.repeat(100)}` }]);
    expect(out.split('\n')[1]).toMatch(/^line1 line2 x+…$/);
    expect(out.split('\n')[1]!.length).toBe(80);
  });
  it('says (none) for no rows', () => {
    expect(renderTable(plain, [])).toBe('(none)');
  });
});

describe('renderGeneric', () => {
  it.each([
    ['a string', 'hello', 'hello'],
    ['a number', 42, '42'],
    ['null', null, ''],
    ['a list of records', [{ a: 1 }], 'A\n1'],
    ['a list of scalars', ['x', 'y'], 'x\ny'],
    ['an object', { path: '/x', exists: true }, 'path    /x\nexists  true'],
    ['an object holding a list of records', { items: [{ a: 1 }] }, 'items:\nA\n1'],
    ['nested values as JSON', { cfg: { a: [1] } }, 'cfg  {"a":[1]}'],
  ])('%s', (_name, value, expected) => {
    expect(renderGeneric(value, ui)).toBe(expected);
  });
});

describe('colorLevel', () => {
  it.each([
    ['NO_COLOR wins over a TTY', { NO_COLOR: '1' }, true, 0],
    ['NO_COLOR wins over FORCE_COLOR', { NO_COLOR: '1', FORCE_COLOR: '1' }, false, 0],
    ['an empty NO_COLOR is ignored (no-color.org)', { NO_COLOR: '' }, false, 0],
    ['not a TTY', {}, false, 0],
    ['FORCE_COLOR on a pipe', { FORCE_COLOR: '1' }, false, 'some'],
  ])('%s', (_name, env, isTTY, expected) => {
    const level = colorLevel(env, { isTTY });
    if (expected === 'some') expect(level).toBeGreaterThan(0);
    else expect(level).toBe(expected);
  });
});

describe('errors', () => {
  it('formats Error [CODE]: message and the hint', () => {
    expect(formatError({ code: 'NOT_FOUND', message: 'No server "x".', hint: 'See mcpkit server list.' }, plain)).toBe(
      'Error [NOT_FOUND]: No server "x".\nHint: See mcpkit server list.\n',
    );
  });
  it.each([
    [
      'a ToolError keeps its fields',
      new ToolError('CONFLICT', 'exists', { details: { a: 1 }, hint: 'h' }),
      { code: 'CONFLICT', message: 'exists', details: { a: 1 }, hint: 'h' },
      1,
    ],
    [
      "bad input is bad usage, with the front end's advice",
      new ToolError('INVALID_INPUT', 'bad'),
      { code: 'INVALID_INPUT', message: 'bad', hint: MCP_WORDS.inputHint },
      2,
    ],
    [
      'anything else is INTERNAL',
      new TypeError('x is undefined'),
      { code: 'INTERNAL', message: 'Unexpected error: x is undefined', hint: expect.any(String) },
      1,
    ],
  ])('%s', (_name, error, published, exit) => {
    const obj = errorObject(error);
    expect(obj).toEqual(published);
    expect(exitCodeFor(obj)).toBe(exit);
  });
});
