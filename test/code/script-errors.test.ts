import { describe, expect, it } from 'vitest';
import { runCode } from '../../src/code/sandbox.js';
import { CODE_LIMIT_DEFAULTS } from '../../src/code/limits.js';
import type { ScriptAnswer } from '../../src/code/tool-value.js';
import { toErrorResult } from '../../src/tool/mcp-shape.js';

/**
 * A script's errors (issue 66), in the real sandbox (QuickJS in a worker, from the build): cut to
 * max_output_bytes like any output, placed at the line and column the person wrote (TypeScript
 * too), and a tool's failure keeps its code in the script's catch and when uncaught; sleep(ms)
 * waits within the run's time, so a script can honour retry_after_ms.
 */
const tools = { everything: { echo: 'everything__echo' } };
const limited: ScriptAnswer = {
  ok: false,
  error: { code: 'RATE_LIMITED', message: 'Client bob: over its rate', details: { client: 'bob', retry_after_ms: 40 }, hint: 'Wait 40 ms.' },
};
function run(code: string, call: () => ScriptAnswer = () => ({ ok: true, value: 'Echo' }), limits: Partial<typeof CODE_LIMIT_DEFAULTS> = {}) {
  return runCode(code, { tools, call: async () => call(), limits: { ...CODE_LIMIT_DEFAULTS, timeoutMs: 10_000, ...limits } });
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the run did not fail'),
    (error: unknown) => error as { code: string; message: string; details?: Record<string, unknown>; hint?: string },
  );

describe("a script's error is output, bounded by max_output_bytes", () => {
  it('a 12 MB message is cut: the answer is not 24 MB', async () => {
    // Building 12 MB in the engine takes seconds on a busy machine: the deadline is not what this tests.
    const error = await failure(run(`throw new Error('x'.repeat(12e6))`, undefined, { timeoutMs: 60_000 }));
    expect(error.code).toBe('SCRIPT_ERROR');
    expect(Buffer.byteLength(error.message)).toBeLessThanOrEqual(CODE_LIMIT_DEFAULTS.maxOutputBytes);
    expect(error.message).toMatch(/cut at 200000 bytes: code\.max_output_bytes/);
    // What the client gets, text and structured content together.
    expect(Buffer.byteLength(JSON.stringify(toErrorResult(error)))).toBeLessThan(3 * CODE_LIMIT_DEFAULTS.maxOutputBytes);
  });

  it('a message, what was printed before it, and a thrown string, all within the limit', async () => {
    const error = await failure(run(`console.log('y'.repeat(3000)); throw 'z'.repeat(50000)`, undefined, { maxOutputBytes: 5000 }));
    expect(Buffer.byteLength(error.message)).toBeLessThanOrEqual(2000);
    expect(error.details?.logs).toEqual(['y'.repeat(3000)]);
  });
});

describe('where a script failed: the line and column as written, no frame of the wrapper', () => {
  it.each([
    ['a property of null on line 3', 'const a = 1;\nconst b = 2;\n    null.foo;\nreturn a + b;', 3, 9, [3]],
    ['a throw in a function, called on line 5', "const x = 1;\nfunction f() {\n  throw new Error('deep');\n}\nf();", 3, 18, [3, 5]],
    ['the first line', 'null.foo;', 1, 5, [1]],
    ['TypeScript, types removed before the place on the line', 'const a: number = 1; const b: string | null = null; b!.length;', 1, 54, [1]],
    ['TypeScript on a later line', 'interface A { n: number }\nconst a: A = { n: 1 };\nconst z: A | null = null; (z as any).n.toString();', 3, 37, [3]],
  ])('%s', async (_what, code, line, column, lines) => {
    const error = await failure(run(code));
    expect(error.code).toBe('SCRIPT_ERROR');
    expect(error.details).toMatchObject({ line, column });
    const frames = [...error.message.matchAll(/script\.js:(\d+):(\d+)/g)].map((m) => Number(m[1]));
    expect(frames).toEqual(lines);
    expect(error.message).not.toMatch(/<eval>|mcpkit-bootstrap/);
  });
});

describe("a tool's failure keeps its code, in the script's catch and uncaught", () => {
  it('caught: an Error with code, details and hint', async () => {
    const outcome = await run(
      `try { await tools.everything.echo({}); } catch (e) { return { error: e instanceof Error, code: e.code, retry: e.details.retry_after_ms, hint: e.hint }; }`,
      () => limited,
    );
    expect(outcome.result).toEqual({ error: true, code: 'RATE_LIMITED', retry: 40, hint: 'Wait 40 ms.' });
  });

  it('uncaught: the run ends with that code, its details and hint', async () => {
    const error = await failure(run(`await tools.everything.echo({});`, () => limited));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', details: { client: 'bob', retry_after_ms: 40, calls: 1 }, hint: 'Wait 40 ms.' });
    expect(error.message).toMatch(/over its rate/);
  });

  it("a script's own Error with a code does not pass for mcpkit's", async () => {
    const error = await failure(run(`const e = new Error('mine'); e.code = 'INTERNAL'; e.details = { retry_after_ms: 1 }; throw e;`));
    expect(error.code).toBe('SCRIPT_ERROR');
    expect(error.details).not.toHaveProperty('retry_after_ms');
  });
});

describe('sleep(ms): a wait within the run', () => {
  it('waits, and a script honours retry_after_ms with it', async () => {
    let calls = 0;
    const outcome = await run(
      `const started = Date.now();
       for (;;) {
         try { return { answer: await tools.everything.echo({}), waited: Date.now() - started }; }
         catch (e) { if (e.code !== 'RATE_LIMITED') throw e; await sleep(e.details.retry_after_ms); }
       }`,
      () => (++calls < 3 ? limited : { ok: true, value: 'Echo' }),
    );
    expect(outcome.result).toMatchObject({ answer: 'Echo' });
    expect((outcome.result as { waited: number }).waited).toBeGreaterThanOrEqual(80);
    expect(calls).toBe(3);
  });

  it.each([
    ['past the run’s time', 'await sleep(60000)', 'TIMEOUT', /would end past the run's time/],
    ['not a number', "await sleep('soon')", 'INVALID_INPUT', /takes a number of milliseconds/],
    ['negative', 'await sleep(-1)', 'INVALID_INPUT', /takes a number of milliseconds/],
  ])('%s: refused at once, with a code the script may catch', async (_what, code, errorCode, message) => {
    const outcome = await run(`try { ${code}; return 'slept'; } catch (e) { return { code: e.code, message: e.message }; }`, undefined, { timeoutMs: 5000 });
    expect(outcome.result).toMatchObject({ code: errorCode, message: expect.stringMatching(message) });
  });
});
