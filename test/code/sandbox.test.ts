import { describe, expect, it } from 'vitest';
import { runCode, type CodeRun } from '../../src/code/sandbox.js';
import { CODE_LIMIT_DEFAULTS } from '../../src/code/limits.js';
import type { ScriptAnswer } from '../../src/code/tool-value.js';

/**
 * The sandbox on its own (code/sandbox.ts and its worker, from the build): scripts in QuickJS, tool
 * calls answered by the test. serve's own use of it, with real servers, is test/mcp/code-mode.test.ts.
 */
const tools = { everything: { echo: 'everything__echo', 'get-sum': 'everything__get-sum' }, memory: { read_graph: 'memory__read_graph' } };
const answers: Record<string, (args: Record<string, unknown>) => ScriptAnswer> = {
  everything__echo: (args) => ({ ok: true, value: `Echo: ${String(args.message)}` }),
  'everything__get-sum': (args) => ({ ok: true, value: { result: Number(args.a) + Number(args.b) } }),
  memory__read_graph: () => ({ ok: false, error: { code: 'TOOL_NOT_APPROVED', message: 'read_graph is withheld' } }),
};
function run(code: string, extra: Partial<CodeRun> = {}, limits: Partial<typeof CODE_LIMIT_DEFAULTS> = {}) {
  const called: string[] = [];
  const outcome = runCode(code, {
    tools,
    call: async (name, args) => (called.push(name), answers[name]!(args)),
    limits: { ...CODE_LIMIT_DEFAULTS, timeoutMs: 5000, ...limits },
    ...extra,
  });
  return { outcome, called };
}

/**
 * One endless loop, read by the two tests about it (its error, and the host's timer ticking while it
 * spins): the run spins a core to its deadline, and the same run shows both. Started by whichever of
 * them runs first, so either runs alone too. The deadline is 800 ms, a core's CPU for each of them:
 * the timer ticks every 20 ms, so a host that answered meanwhile ticks up to 40 times, and one whose
 * thread the loop held once or twice.
 */
let looping: Promise<{ error: unknown; ticks: number }> | undefined;
function endlessLoop() {
  looping ??= (async () => {
    const { outcome } = run(`while (true) {}`, {}, { timeoutMs: 800 });
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 20);
    const error = await outcome.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    clearInterval(ticking);
    return { error, ticks };
  })();
  return looping;
}

describe('code mode: the sandbox', () => {
  it("runs a chain: one call's answer feeds the next; console is kept; the return value is the result", async () => {
    const { outcome } = run(`
      const sum = await tools.everything['get-sum']({ a: 2, b: 3 });
      console.log('sum is', sum.result, { ok: true });
      return await tools.everything.echo({ message: String(sum.result) });
    `);
    await expect(outcome).resolves.toEqual({ result: 'Echo: 5', logs: ['sum is 5 {"ok":true}'], calls: 2 });
  });

  it('runs TypeScript with its types stripped', async () => {
    const { outcome } = run(`
      interface Sum { result: number }
      const got: Sum = await tools.everything['get-sum']({ a: 1, b: 1 }) as Sum;
      return got.result satisfies number;
    `);
    await expect(outcome).resolves.toMatchObject({ result: 2 });
  });

  it('runs calls in parallel with Promise.all, at most max_parallel at once', async () => {
    let now = 0;
    let most = 0;
    const outcome = runCode(`return (await Promise.all(Array.from({ length: 20 }, (_, i) => tools.everything.echo({ message: i })))).length;`, {
      tools,
      call: async () => {
        most = Math.max(most, ++now);
        await new Promise((r) => setTimeout(r, 20));
        now--;
        return { ok: true, value: 'x' };
      },
      limits: { ...CODE_LIMIT_DEFAULTS, maxParallel: 4 },
    });
    await expect(outcome).resolves.toMatchObject({ result: 20, calls: 20 });
    expect(most).toBe(4);
  });

  it("a failed call rejects with an Error carrying mcpkit's code, which the script may catch", async () => {
    const { outcome } = run(`
      try { await tools.memory.read_graph(); return 'no'; }
      catch (e) { return { isError: e instanceof Error, code: e.code, message: e.message }; }
    `);
    await expect(outcome).resolves.toMatchObject({ result: { isError: true, code: 'TOOL_NOT_APPROVED', message: 'read_graph is withheld' } });
  });

  it.each([
    ['an uncaught throw', `throw new TypeError('boom')`, 'SCRIPT_ERROR', /TypeError: boom/],
    // A tool's failure the script does not catch ends the run with that failure's code (issue 66).
    ['a rejected call not caught', `await tools.memory.read_graph()`, 'TOOL_NOT_APPROVED', /read_graph is withheld/],
    ['a syntax error', `return (`, 'SCRIPT_ERROR', /does not parse/],
    ['an endless await', `await new Promise(() => {})`, 'TIMEOUT', /ran past its 1000 ms/],
    ['a memory bomb', `const a = []; while (true) a.push([a.length, { n: a.length }]);`, 'SCRIPT_LIMIT', /more than its 4 MB of memory \(code.memory_mb\)/],
    [
      'a memory bomb of 1 MB arrays',
      `const a = []; while (true) a.push(new Uint8Array(1000000));`,
      'SCRIPT_LIMIT',
      /more than its 4 MB of memory \(code.memory_mb\)/,
    ],
    [
      'a value too large to make JSON of',
      `return Array.from({ length: 200 }, (_, i) => 'v'.repeat(60000) + i);`,
      'SCRIPT_LIMIT',
      /more than its 4 MB of memory \(code.memory_mb\)/,
    ],
    ['deep recursion', `const f = (n) => f(n + 1) + 1; return f(0);`, 'SCRIPT_ERROR', /RangeError|stack/i],
    [
      '10,000 calls',
      `for (let i = 0; i < 10000; i++) await tools.everything.echo({ message: i });`,
      'SCRIPT_LIMIT',
      /more than 100 tool calls \(code.max_calls\)/,
    ],
    ['a huge result', `return 'x'.repeat(300000)`, 'SCRIPT_LIMIT', /output is too large.*code.max_output_bytes/],
    ['printing too much', `for (;;) console.log('y'.repeat(1000))`, 'SCRIPT_LIMIT', /printed more than 200000 bytes/],
  ])('%s ends the run with a clear error', async (_what, code, errorCode, message) => {
    // Only a row that tests the deadline has a short one: under load, the others must not meet it first.
    // The heap is small: QuickJS's collector makes filling one cost more than its size (8 MB: 0.6 CPU-s, 4 MB: 0.2).
    const { outcome } = run(code, {}, { timeoutMs: errorCode === 'TIMEOUT' ? 1000 : 30_000, memoryMb: 4 });
    await expect(outcome).rejects.toMatchObject({ code: errorCode, message: expect.stringMatching(message) });
  });

  it.each([
    ['1 MB typed arrays', 'new Uint8Array(1000000)'],
    ['1 MB strings', "'q'.repeat(1000000) + held.length"],
  ])('holds no more than its memory_mb of %s, however they are counted', async (_what, oneMb) => {
    // QuickJS's own count of its heap misses most of these when built for WebAssembly: under a 64 MB
    // limit a script held over 2000 of them (its WebAssembly memory's 2 GiB) before it was bounded.
    const { outcome } = run(`const held = []; try { while (true) held.push(${oneMb}); } catch (e) { return held.length; }`, {}, { memoryMb: 8 });
    const held = (await outcome).result as number;
    expect(held).toBeGreaterThan(0);
    // memory_mb past the 16 MiB the engine starts with (its stack and static data, and its first heap).
    expect(held).toBeLessThanOrEqual(8 + 16);
  });

  it("an answer the script's full memory has no room for ends the run naming memory_mb, written nowhere in the engine", async () => {
    const { outcome } = run(
      `const held = []; try { while (true) held.push(new Uint8Array(65536)); } catch {} return await tools.everything.echo({ message: 'big' });`,
      { call: async () => ({ ok: true, value: 'B'.repeat(3_000_000) }) },
      { memoryMb: 4 },
    );
    await expect(outcome).rejects.toMatchObject({ code: 'SCRIPT_LIMIT', message: expect.stringMatching(/more than its 4 MB of memory \(code.memory_mb\)/) });
  });

  it('finds nothing of the host: no process, require, fetch, timers; constructor.constructor reaches only the engine', async () => {
    const { outcome } = run(`
      const seen = {};
      for (const name of ['process', 'require', 'fetch', 'setTimeout', 'setInterval', 'Buffer', 'module', 'WebAssembly', 'XMLHttpRequest', 'Deno'])
        seen[name] = name in globalThis ? typeof globalThis[name] : 'absent';
      seen['import.meta'] = (() => { try { return typeof eval('import.meta'); } catch (e) { return e.name; } })();
      const global = (() => {}).constructor.constructor('return this')();
      seen.globalKeys = Object.getOwnPropertyNames(global).filter((k) => /^(process|require|fetch|Buffer|module|exports)$|^__/.test(k));
      // What tools returns is the script's own: tampering with it changes nothing outside.
      const answer = await tools.everything['get-sum']({ a: 1, b: 2 });
      answer.__proto__.polluted = true;
      Object.prototype.hacked = 1;
      seen.tools = Object.isFrozen(tools) && Object.isFrozen(tools.everything);
      try { await import('node:fs'); seen.import = 'worked'; } catch { seen.import = 'refused'; }
      return seen;
    `);
    const { result } = await outcome;
    expect(result).toEqual({
      process: 'absent',
      require: 'absent',
      fetch: 'absent',
      setTimeout: 'absent',
      setInterval: 'absent',
      Buffer: 'absent',
      module: 'absent',
      WebAssembly: 'absent',
      XMLHttpRequest: 'absent',
      Deno: 'absent',
      'import.meta': 'SyntaxError',
      globalKeys: [],
      tools: true,
      import: 'refused',
    });
    expect(({} as Record<string, unknown>).hacked).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a run finds nothing of the run before it: neither its globals nor its calls after it returned', async () => {
    // The first run returns with a call still to come (after its sleep) and its world changed.
    const first = run(`
      globalThis.left = 'behind';
      Object.prototype.polluted = true;
      sleep(50).then(() => tools.everything.echo({ message: 'late' }));
      return 1;
    `);
    await expect(first.outcome).resolves.toMatchObject({ result: 1 });
    // The next run starts at once and outlives the first's sleep.
    const second = run(`await sleep(300); return { left: typeof globalThis.left, polluted: ({}).polluted === true };`);
    await expect(second.outcome).resolves.toEqual({ result: { left: 'undefined', polluted: false }, logs: [], calls: 0 });
    expect(first.called).toEqual([]);
    expect(second.called).toEqual([]);
  });

  it('stops at once when cancelled, and cancels the calls in flight', async () => {
    const controller = new AbortController();
    let aborted = false;
    const outcome = runCode(`await tools.everything.echo({ message: 'slow' })`, {
      tools,
      call: (_name, _args, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => ((aborted = true), resolve({ ok: true, value: null })));
          // The call is under way: now the client cancels the run.
          setTimeout(() => controller.abort(), 20);
        }),
      limits: CODE_LIMIT_DEFAULTS,
      signal: controller.signal,
    });
    await expect(outcome).rejects.toMatchObject({ code: 'TIMEOUT', message: 'The run was cancelled.' });
    expect(aborted).toBe(true);
  });

  it('an endless loop ends the run with a clear error', async () => {
    expect((await endlessLoop()).error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/ran past its 800 ms \(code.timeout_ms\)/) });
  });

  it("a loop does not hold the host's thread: the host answers meanwhile", async () => {
    const { error, ticks } = await endlessLoop();
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(ticks).toBeGreaterThan(15);
  });
});
