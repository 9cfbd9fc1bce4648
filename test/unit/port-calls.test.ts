import { describe, expect, it } from 'vitest';
import { PortCalls } from '../../src/mcp/pipeline/port-calls.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * Closing a terminal port (mcp/pipeline/port-calls.ts): the calls still running are cancelled and
 * waited for, so each writes its audit line before the log closes; one that does not end within
 * the grace is abandoned (its line written for it); a call after the close is refused, unrun.
 */

/** A call that ends only when its signal is aborted, after `lag` more turns of the event loop. */
function endsOnCancel(lag = 3) {
  const log: string[] = [];
  const run = (signal: AbortSignal, onAbandon: (abandon: () => void) => void) =>
    new Promise<string>((resolve) => {
      onAbandon(() => void log.push('abandoned'));
      signal.addEventListener('abort', () => {
        let turns = lag;
        const turn = () => (turns-- ? setImmediate(turn) : (log.push('line written'), resolve('cancelled')));
        turn();
      });
    });
  return { run, log };
}

describe('PortCalls', () => {
  it('close cancels a call still running and waits until it has ended', async () => {
    const calls = new PortCalls(60_000);
    const call = endsOnCancel();
    const running = calls.run('slow', undefined, call.run);
    expect(calls.count).toBe(1);
    await calls.close();
    expect(call.log).toEqual(['line written']);
    await expect(running).resolves.toBe('cancelled');
    expect(calls.count).toBe(0);
  });

  it("a call runs under its caller's signal too", async () => {
    const calls = new PortCalls(60_000);
    const own = new AbortController();
    const call = endsOnCancel(0);
    const running = calls.run('slow', own.signal, call.run);
    own.abort();
    await expect(running).resolves.toBe('cancelled');
    expect(calls.count).toBe(0);
  });

  it('a call that does not end within the grace is abandoned, once, and close returns', async () => {
    const calls = new PortCalls(20);
    const abandoned: string[] = [];
    void calls.run('stuck', undefined, (_signal, onAbandon) => {
      onAbandon(() => void abandoned.push('stuck'));
      return new Promise(() => {});
    });
    const done = endsOnCancel(0);
    void calls.run('quick', undefined, done.run);
    await calls.close();
    expect(abandoned).toEqual(['stuck']);
    expect(done.log).toEqual(['line written']);
    expect(calls.count).toBe(0);
  });

  it('an abandoned call whose line must wait (its audit log still opening) has it written before close returns', async () => {
    const calls = new PortCalls(20);
    const log: string[] = [];
    let opened!: () => void;
    const opening = new Promise<void>((resolve) => (opened = resolve));
    void calls.run('opening', undefined, async (_signal, onAbandon) => {
      onAbandon(async () => {
        log.push('abandoned');
        await opening;
        log.push('line written');
      });
      await opening;
      return new Promise(() => {});
    });
    let closed = false;
    const closing = calls.close().then(() => (closed = true));
    await waitFor(() => log.includes('abandoned'), 60_000, 5);
    await new Promise((resolve) => setImmediate(resolve));
    // The port is not closed while the line waits for its log.
    expect(closed).toBe(false);
    opened();
    await closing;
    expect(log).toEqual(['abandoned', 'line written']);
  });

  it('a call after the close is refused and never run', async () => {
    const calls = new PortCalls();
    await calls.close();
    let ran = false;
    await expect(
      calls.run('late', undefined, () => {
        ran = true;
        return Promise.resolve('ran');
      }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/late was not called/) });
    expect(ran).toBe(false);
  });

  it('a failed call is no longer running, and close has nothing to wait for', async () => {
    const calls = new PortCalls(60_000);
    await expect(calls.run('bad', undefined, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(calls.count).toBe(0);
    await calls.close();
  });
});
