import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressTimeout } from '../../../src/proxy/upstream/progress-timeout.js';

describe('ProgressTimeout', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('fires when nothing came for idleMs', () => {
    const t = new ProgressTimeout(1500, 600_000);
    vi.advanceTimersByTime(1499);
    expect(t.fired).toBeUndefined();
    vi.advanceTimersByTime(1);
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

  it('stop clears both timers', () => {
    const t = new ProgressTimeout(100, 200);
    t.stop();
    vi.advanceTimersByTime(1000);
    expect(t.fired).toBeUndefined();
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
