import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCode, type CodeRun } from '../../src/code/sandbox.js';
import { endWaitingThreads, KEPT_THREADS, keepsThread, sandboxThreads } from '../../src/code/sandbox-threads.js';
import { CODE_LIMIT_DEFAULTS } from '../../src/code/limits.js';
import type { ScriptAnswer } from '../../src/code/tool-value.js';

/**
 * Code mode's threads (code/sandbox-threads.ts): a thread whose script returned clean runs the next
 * script, in a new QuickJS instance; a run that leaves anything behind (a call, a sleep, a grown
 * engine) or ends any other way ends its thread. The attacks are runs that try to outlive
 * themselves into the next run's thread.
 */
const MB = 1024 * 1024;
const clean = { calls: 0, sleeps: 0, memoryBytes: 16 * MB };

describe('which thread waits for the next run (keepsThread)', () => {
  it.each([
    ['a run that left nothing', clean, 1, 0, true],
    ['a call unanswered', { ...clean, calls: 1 }, 1, 0, false],
    ['a sleep pending', { ...clean, sleeps: 1 }, 1, 0, false],
    ['memory at the bound', { ...clean, memoryBytes: KEPT_THREADS.memoryBytes }, 1, 0, true],
    ['memory past the bound', { ...clean, memoryBytes: KEPT_THREADS.memoryBytes + 1 }, 1, 0, false],
    ['the thread has run its last run', clean, KEPT_THREADS.runsPerThread, 0, false],
    ['the thread may run one more', clean, KEPT_THREADS.runsPerThread - 1, 0, true],
    ['as many threads wait as may', clean, 1, KEPT_THREADS.waiting, false],
  ])('%s', (_what, left, runs, waiting, kept) => {
    expect(keepsThread(left, runs, waiting)).toBe(kept);
  });
});

const tools = { everything: { echo: 'everything__echo' } };
function run(code: string, call: CodeRun['call'] = async (_name, args) => ({ ok: true, value: `Echo: ${String(args.message)}` }) as ScriptAnswer) {
  return runCode(code, { tools, call, limits: { ...CODE_LIMIT_DEFAULTS, timeoutMs: 5000 } });
}

describe.sequential('code mode: a thread runs the next script only when its run left nothing behind', () => {
  beforeEach(() => endWaitingThreads());
  afterAll(() => endWaitingThreads());

  it('a run that returned clean leaves its thread to the next, which finds nothing of it: globals, prototypes, engine', async () => {
    const before = sandboxThreads().started;
    await expect(run(`globalThis.left = 'behind'; Object.prototype.polluted = true; Array.prototype.push = () => 0; return 1;`)).resolves.toMatchObject({
      result: 1,
    });
    expect(sandboxThreads()).toEqual({ started: before + 1, waiting: 1 });
    const second = await run(`const a = []; a.push(1); return { left: typeof globalThis.left, polluted: ({}).polluted === true, pushed: a.length };`);
    expect(second.result).toEqual({ left: 'undefined', polluted: false, pushed: 1 });
    // The same thread ran it.
    expect(sandboxThreads()).toEqual({ started: before + 1, waiting: 1 });
  });

  it("each run in a thread has a new engine: what one run's heap held is not the next run's", async () => {
    const before = sandboxThreads().started;
    // 8 MB each: five in one engine would grow it past the bound, and end the thread.
    for (let n = 0; n < 5; n++) {
      await expect(run(`globalThis.held = []; for (let i = 0; i < 8; i++) held.push('z'.repeat(1000000) + i); return held.length;`)).resolves.toMatchObject({
        result: 8,
      });
    }
    expect(sandboxThreads()).toEqual({ started: before + 1, waiting: 1 });
  });

  it('a run that returned with a sleep pending ends its thread: its engine is not kept alive into the next run', async () => {
    await expect(
      run(`globalThis.big = 'x'.repeat(1000000); sleep(2000).then(() => tools.everything.echo({ message: 'late' })); return 1;`),
    ).resolves.toMatchObject({ result: 1 });
    expect(sandboxThreads().waiting).toBe(0);
    const before = sandboxThreads().started;
    await expect(run(`await sleep(10); return typeof globalThis.big;`)).resolves.toMatchObject({ result: 'undefined' });
    expect(sandboxThreads().started).toBe(before + 1);
  });

  it('a run that returned with a call unanswered ends its thread, and the call is cancelled: its answer reaches no later run', async () => {
    let cancelled = false;
    const slow: CodeRun['call'] = (_name, _args, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => ((cancelled = true), resolve({ ok: true, value: 'late' })));
      });
    await expect(run(`tools.everything.echo({ message: 'never awaited' }); return 1;`, slow)).resolves.toMatchObject({ result: 1, calls: 1 });
    expect(cancelled).toBe(true);
    expect(sandboxThreads().waiting).toBe(0);
    // The next run's first call has the number the unanswered one had: it gets its own answer.
    await expect(run(`return await tools.everything.echo({ message: 'mine' });`)).resolves.toMatchObject({ result: 'Echo: mine' });
  });

  it('a run whose engine grew past the bound ends its thread, freeing its memory at once', async () => {
    await expect(run(`const parts = []; for (let i = 0; i < 40; i++) parts.push('y'.repeat(1000000) + i); return parts.length;`)).resolves.toMatchObject({
      result: 40,
    });
    expect(sandboxThreads().waiting).toBe(0);
  });

  it('a run that failed, hit a limit or was cancelled ends its thread', async () => {
    await expect(run(`throw new Error('no');`)).rejects.toMatchObject({ code: 'SCRIPT_ERROR' });
    await expect(run(`for (let i = 0; i < 5; i++) console.log('x'.repeat(100000)); return 1;`)).rejects.toMatchObject({ code: 'SCRIPT_LIMIT' });
    expect(sandboxThreads().waiting).toBe(0);
  });

  it(`at most ${KEPT_THREADS.waiting} threads wait, however many runs ended clean at once`, async () => {
    const before = sandboxThreads().started;
    await Promise.all([1, 2, 3, 4].map((n) => expect(run(`await sleep(50); return ${n};`)).resolves.toMatchObject({ result: n })));
    expect(sandboxThreads()).toEqual({ started: before + 4, waiting: KEPT_THREADS.waiting });
  });
});
