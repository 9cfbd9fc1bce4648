import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Worker } from 'node:worker_threads';
import { ProgressTimeout } from '../../../src/proxy/upstream/progress-timeout.js';
import { ROOT, spawnTracked } from '../../helpers/cli.js';

describe('ProgressTimeout', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('fires when nothing came for idleMs', () => {
    const t = new ProgressTimeout(1500, 600_000);
    vi.advanceTimersByTime(1499);
    expect(t.fired).toBeUndefined();
    vi.advanceTimersByTime(1);
    // Its timer ran; it fires after the input waiting then is read (a setImmediate), which held no progress.
    expect(t.fired).toBeUndefined();
    vi.runOnlyPendingTimers();
    expect(t.fired).toBe('idle');
    expect(t.signal.aborted).toBe(true);
    expect((t.signal.reason as { code: number }).code).toBe(-32001);
  });

  it('restarts at each progress, up to the ceiling', () => {
    const t = new ProgressTimeout(1500, 4000);
    const relayed: number[] = [];
    const heard = t.relay((p) => relayed.push(p.progress));
    for (let i = 1; i <= 7; i++) {
      vi.advanceTimersByTime(500);
      heard({ progress: i });
    }
    expect(t.fired).toBeUndefined();
    expect(relayed).toEqual([1, 2, 3, 4, 5, 6, 7]);
    vi.advanceTimersByTime(500);
    expect(t.fired).toBe('total');
  });

  it('stop clears both timers, and progress that comes after it starts neither again', () => {
    const told: string[] = [];
    const t = new ProgressTimeout(100, 200, (which) => told.push(which));
    t.stop();
    t.touch();
    vi.runAllTimers();
    expect(t.fired).toBeUndefined();
    expect(told).toEqual([]);
  });

  it("merges the caller's signal with its own", () => {
    const caller = new AbortController();
    const t = new ProgressTimeout(100, 200);
    const { signal, timeout } = t.options(caller.signal);
    expect(timeout).toBe(1200);
    caller.abort();
    expect(signal.aborted).toBe(true);
    expect(t.fired).toBeUndefined();
    t.stop();
  });

  it('tells onFire which fired, once; a signal asked for afterwards is already aborted (the hot path never asks)', () => {
    const told: string[] = [];
    const t = new ProgressTimeout(100, 250, (which) => told.push(which));
    vi.advanceTimersByTime(90);
    t.touch();
    vi.advanceTimersByTime(90);
    t.touch();
    vi.advanceTimersByTime(90);
    expect(told).toEqual(['total']);
    expect(t.signal.aborted).toBe(true);
    vi.advanceTimersByTime(1000);
    expect(told).toEqual(['total']);
  });

  it.each([
    ['idle', 1500, 4000, { code: -32001, message: 'Request timed out after 1500 ms' }],
    ['total', 1500, 4000, { code: -32001, message: 'Request timed out after 4000 ms', total: true }],
    // A ceiling below the idle wait is the idle wait.
    ['total', 1500, 1000, { code: -32001, message: 'Request timed out after 1500 ms', total: true }],
  ] as const)('error(%s) with idle %i and ceiling %i', (which, idle, total, want) => {
    const t = new ProgressTimeout(idle, total);
    expect(t.error(which)).toEqual(want);
    t.stop();
  });
});

describe('ProgressTimeout in an idle process', () => {
  it('fires on time in a process that waits for nothing else, before an answer that comes later is read', async () => {
    // Its own process, as serve is (its stdin open, nothing else to do; a vitest worker is never that
    // idle), and a server's answer that comes on its stdin 3 s after the wait is armed. A wait whose
    // last step ran only at the loop's next event (an unref'd setImmediate) fired when the answer
    // came, after the answer was read.
    const scenario = [
      "import { ProgressTimeout } from './src/proxy/upstream/progress-timeout.ts';",
      'let answered = false;',
      "process.stdin.on('data', () => (answered = true));",
      'const started = performance.now();',
      'new ProgressTimeout(50, 60000, () => { process.stdout.write(JSON.stringify({ answered, late: performance.now() - started > 2500 })); process.exit(0); });',
      "process.stderr.write('armed\\n');",
    ].join('\n');
    const child = spawnTracked(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', scenario], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let answer: NodeJS.Timeout | undefined;
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.includes('armed') && !answer) answer = setTimeout(() => child.stdin!.write('the answer\n'), 3_000);
    });
    const deadline = setTimeout(() => child.kill('SIGKILL'), 15_000);
    try {
      await new Promise((resolve) => child.once('close', resolve));
    } finally {
      clearTimeout(answer);
      clearTimeout(deadline);
    }
    expect(out, err).toBe(JSON.stringify({ answered: false, late: false }));
  });
});

describe('ProgressTimeout in a busy process', () => {
  it('progress that came while the process was busy past the wait is read before the wait fires', async () => {
    // A thread posts a progress message 20 ms after it starts, and says so in `posted`; this thread
    // is busy meanwhile, past the 50 ms wait and until the message is surely waiting.
    const posted = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      'const { parentPort, workerData } = require("node:worker_threads"); setTimeout(() => { parentPort.postMessage("progress"); Atomics.store(workerData, 0, 1); }, 20);',
      { eval: true, workerData: posted },
    );
    try {
      await new Promise((resolve) => worker.once('online', resolve));
      const t = new ProgressTimeout(50, 60_000);
      const heard: number[] = [];
      const relay = t.relay((p) => heard.push(p.progress));
      worker.once('message', () => relay({ progress: 1 }));
      // Busy in a timer's callback, as serve is while it answers other calls: the wait's timer, due
      // by then, runs in the same round of timers, before the message is read.
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          const started = performance.now();
          while (performance.now() - started < 120 || Atomics.load(posted, 0) === 0);
          resolve();
        }, 0),
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(heard).toEqual([1]);
      expect(t.fired).toBeUndefined();
      t.stop();
    } finally {
      await worker.terminate();
    }
  });
});
