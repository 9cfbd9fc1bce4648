import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/core/errors.js';
import { codeLimitsOf, CODE_LIMIT_DEFAULTS } from '../../src/code/limits.js';
import { toJavaScript } from '../../src/code/strip-types.js';
import { failureOf, scriptAnswerOf } from '../../src/code/tool-value.js';

describe('toJavaScript: a script as the engine runs it', () => {
  it.each([
    ['plain JavaScript stays', 'return 1 + 1;', 'return 1 + 1;'],
    ['types go', 'const n: number = 1;\nreturn n as number;', 'const n = 1;\nreturn n ;'],
    ['an interface goes', 'interface A { b: string }\nreturn 1;', '\nreturn 1;'],
    ['top-level await and return stay', 'const x = await f();\nreturn x;', 'const x = await f();\nreturn x;'],
  ])('%s', (_what, code, want) => {
    expect(toJavaScript(code).js.trim()).toBe(want.trim());
  });

  it('a script that does not parse is SCRIPT_ERROR, with its line', () => {
    expect(() => toJavaScript('const = 1;')).toThrow(ToolError);
    expect(() => toJavaScript('\nconst = 1;')).toThrow(/does not parse.*line 2/);
  });
});

describe('scriptAnswerOf: what a tool call resolves to in a script', () => {
  it.each([
    ['structuredContent when it gives one', { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }, { ok: true, value: { a: 1 } }],
    [
      'else its text',
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      { ok: true, value: 'one\ntwo' },
    ],
    ['other parts by their type', { content: [{ type: 'image', data: 'x' }] }, { ok: true, value: '[image]' }],
    [
      "an error result with mcpkit's error object",
      { isError: true, content: [], structuredContent: { error: { code: 'RATE_LIMITED', message: 'slow down', hint: 'wait' } } },
      { ok: false, error: { code: 'RATE_LIMITED', message: 'slow down', hint: 'wait' } },
    ],
    [
      "an error result in the tool's words",
      { isError: true, content: [{ type: 'text', text: 'nope' }] },
      { ok: false, error: { code: 'UPSTREAM_ERROR', message: 't failed: nope' } },
    ],
  ])('%s', (_what, result, want) => {
    expect(scriptAnswerOf('t', result)).toEqual(want);
  });
});

describe('failureOf: a call that threw', () => {
  it.each([
    ['a ToolError', new ToolError('NOT_FOUND', 'no such tool', { hint: 'look' }), { code: 'NOT_FOUND', message: 'no such tool', hint: 'look' }],
    [
      'a JSON-RPC error carrying one',
      Object.assign(new Error('Unknown tool: x.'), { code: -32602, data: { code: 'NOT_FOUND', tool: 'x', similar: [] } }),
      { code: 'NOT_FOUND', message: 'Unknown tool: x.', details: { tool: 'x', similar: [] } },
    ],
    ['anything else', new Error('kaput'), { code: 'INTERNAL', message: expect.stringContaining('kaput'), hint: expect.any(String) }],
  ])('%s', (_what, error, want) => {
    expect(failureOf(error)).toEqual(want);
  });
});

describe('codeLimitsOf', () => {
  it.each([
    [undefined, CODE_LIMIT_DEFAULTS],
    [{ timeout_ms: 5 }, { ...CODE_LIMIT_DEFAULTS, timeoutMs: 5 }],
    [
      { memory_mb: 16, max_calls: 3, max_parallel: 2, max_output_bytes: 10 },
      { ...CODE_LIMIT_DEFAULTS, memoryMb: 16, maxCalls: 3, maxParallel: 2, maxOutputBytes: 10 },
    ],
  ])('%j', (settings, want) => {
    expect(codeLimitsOf(settings)).toEqual(want);
  });
});
