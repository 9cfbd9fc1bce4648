import { describe, expect, it } from 'vitest';
import { CallQueue } from '../../src/audit/call-queue.js';
import type { AuditedCall, CallObserver } from '../../src/audit/auditor.js';

const call = (name: string): AuditedCall => ({ method: 'tools/call', name, started: performance.now() });
const collector = () => {
  const seen: AuditedCall[] = [];
  return { seen, observer: { record: (c: AuditedCall) => void seen.push(c) } satisfies CallObserver };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('CallQueue', () => {
  it('tells every observer of each call, in order, once the batch window passes', async () => {
    const queue = new CallQueue({ batchMs: 20 });
    const a = collector();
    const b = collector();
    queue.add(a.observer);
    queue.add(b.observer);
    for (const name of ['x', 'y', 'z']) queue.record(call(name));
    expect(a.seen).toHaveLength(0); // not on the reply's path
    await sleep(60);
    expect(a.seen.map((c) => c.name)).toEqual(['x', 'y', 'z']);
    expect(b.seen.map((c) => c.name)).toEqual(['x', 'y', 'z']);
  });

  it('dates a call by when it ended, not by when the observers hear of it', async () => {
    const queue = new CallQueue({ batchMs: 80 });
    const a = collector();
    queue.add(a.observer);
    const before = Date.now();
    queue.record(call('t'));
    const after = performance.now();
    await sleep(120);
    const [told] = a.seen;
    expect(told!.finished).toBeLessThanOrEqual(after);
    expect(told!.endedAt).toBeGreaterThanOrEqual(before);
    expect(told!.endedAt).toBeLessThan(before + 50);
  });

  it('tells at once on drain (a scrape, close), and at once when too many wait', () => {
    const queue = new CallQueue({ batchMs: 10_000, maxQueued: 3 });
    const a = collector();
    queue.add(a.observer);
    queue.record(call('1'));
    queue.drain();
    expect(a.seen).toHaveLength(1);
    queue.record(call('2'));
    queue.record(call('3'));
    expect(a.seen).toHaveLength(1);
    queue.record(call('4'));
    expect(a.seen.map((c) => c.name)).toEqual(['1', '2', '3', '4']);
    queue.drain(); // nothing waits: no timer is left behind either
  });

  it('keeps telling the other observers, and the later calls, when one observer throws', () => {
    const queue = new CallQueue();
    const good = collector();
    queue.add({
      record: (c) => {
        if (c.name === 'bad') throw new Error('observer fault');
      },
    });
    queue.add(good.observer);
    queue.record(call('bad'));
    queue.record(call('fine'));
    expect(() => queue.drain()).not.toThrow();
    expect(good.seen.map((c) => c.name)).toEqual(['bad', 'fine']);
  });
});
