import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/logger.js';
import { handshakeDeadline } from '../../../src/proxy/upstream/handshake-deadline.js';
import { Upstream } from '../../../src/proxy/upstream/upstream.js';

/**
 * Keeps the event loop from turning for `ms`, as a machine too loaded to run this process does. The
 * thread sleeps rather than spins: the loop is held the same, and the suite's cores stay free.
 */
function busy(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('a remote where nothing listens, on a machine too busy to turn its event loop past timeout_ms', () => {
  it('is UNAVAILABLE (the refusal waiting to be read), not a TIMEOUT', async () => {
    const TIMEOUT_MS = 500;
    let blocked = false;
    const upstream = new Upstream({
      name: 'dead',
      config: { url: `http://127.0.0.1:${await closedPort()}/mcp`, timeout_ms: TIMEOUT_MS },
      logger: createLogger('error', () => {}),
      version: 'test',
      env: process.env,
      stderr: () => {},
      // Node's fetch, and once the first request is on its way, the loop held past the deadline:
      // the refusal is then there to read when the deadline's timer runs.
      oauth: {
        fetch: (url, init) => {
          const sent = fetch(url, init);
          if (!blocked) setImmediate(() => busy(TIMEOUT_MS * 3));
          blocked = true;
          return sent;
        },
        lastChallenge: () => undefined,
      },
    });
    try {
      await expect(upstream.listTools()).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('ECONNREFUSED') });
      expect(blocked).toBe(true);
    } finally {
      await upstream.close();
    }
  });
});

describe('handshakeDeadline', () => {
  const timedOut = () => new Error('timed out');
  const never = () => new Promise<string>(() => {});

  const noFailure = (): Error | undefined => undefined;
  const cases: [string, () => Promise<string>, { value: string } | { error: string }][] = [
    ['an answer before the deadline is the outcome', () => Promise.resolve('answer'), { value: 'answer' }],
    ['a failure before the deadline is the outcome', () => Promise.reject(new Error('refused')), { error: 'refused' }],
    ['no answer and no failure: a timeout', never, { error: 'timed out' }],
  ];
  it.each(cases)('%s', async (_what, handshake, outcome) => {
    const race = handshakeDeadline(handshake(), 20, { timedOut, failedMeanwhile: noFailure });
    if ('value' in outcome) await expect(race).resolves.toBe(outcome.value);
    else await expect(race).rejects.toThrow(outcome.error);
  });

  it('a failure read in the turn after the deadline wins over the timeout; the handshake failing then too does not', async () => {
    let failure: Error | undefined;
    let fail: (error: Error) => void = () => {};
    const handshake = new Promise<string>((_, reject) => (fail = reject));
    const race = handshakeDeadline(handshake, 20, { timedOut, failedMeanwhile: () => failure });
    // Held past the deadline; the failure is read (an I/O callback) before the turn's end, and the
    // handshake then fails with the SDK's own timeout, which runs a moment after the deadline.
    busy(60);
    setTimeout(() => fail(new Error('Request timed out')), 0);
    setImmediate(() => (failure = new Error('fetch failed: ECONNREFUSED')));
    await expect(race).rejects.toThrow('ECONNREFUSED');
  });

  it('a failure read before the deadline, while the handshake went on, is no reason at the deadline', async () => {
    const earlier = new Error('an earlier GET failed');
    const race = handshakeDeadline(never(), 20, { timedOut, failedMeanwhile: () => earlier });
    await expect(race).rejects.toThrow('timed out');
  });
});
