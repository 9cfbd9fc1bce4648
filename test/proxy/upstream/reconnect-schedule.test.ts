import { describe, expect, it } from 'vitest';
import type { BackoffPolicy } from '../../../src/core/backoff.js';
import { coolDownMs, ReconnectSchedule } from '../../../src/proxy/upstream/reconnect-schedule.js';
import { DEFAULT_BACKOFF } from '../../../src/core/backoff.js';
import { quietLogger } from '../fake-upstreams.js';
import { waitFor } from '../../helpers/upstreams.js';

/** Delays of 1 ms, three attempts, and a connection counts as stable after 50 ms up. */
const POLICY: BackoffPolicy = { baseMs: 1, maxMs: 1, maxAttempts: 3, stableMs: 50 };

function schedule(policy = POLICY) {
  const lines: string[] = [];
  return { reconnects: new ReconnectSchedule(policy, 's', quietLogger(lines)), lines };
}

/** Runs one scheduled retry and waits for it (none is scheduled: false). */
async function retried(reconnects: ReconnectSchedule): Promise<boolean> {
  let ran = false;
  reconnects.schedule(() => (ran = true));
  return waitFor(() => ran, 10_000, 1);
}

describe('ReconnectSchedule', () => {
  it('retries as many times as the policy allows, then gives up until a call starts a new round', async () => {
    const { reconnects, lines } = schedule();
    expect(reconnects.mayRetryNow).toBe(true);
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await retried(reconnects)).toBe(true);
      expect(reconnects.attempts).toBe(attempt);
    }
    expect(reconnects.mayRetryNow).toBe(false);
    let ran = false;
    reconnects.schedule(() => (ran = true));
    expect(lines.join('\n')).toContain('s: giving up after 3 reconnect attempts');
    expect(ran).toBe(false);
    expect(reconnects.startsNewRound()).toBe(true);
    expect(reconnects.startsNewRound()).toBe(false);
    expect(reconnects.attempts).toBe(0);
    expect(await retried(reconnects)).toBe(true);
  });

  it('a call may reconnect at once on the first failure only', async () => {
    const { reconnects } = schedule();
    expect(await retried(reconnects)).toBe(true);
    expect(reconnects.mayRetryNow).toBe(true);
    expect(await retried(reconnects)).toBe(true);
    expect(reconnects.mayRetryNow).toBe(false);
  });

  it('a one-off connection never reconnects, nor lets a call retry at once', () => {
    const { reconnects } = schedule({ ...POLICY, maxAttempts: 0 });
    expect(reconnects.enabled).toBe(false);
    expect(reconnects.mayRetryNow).toBe(false);
    reconnects.schedule(() => {
      throw new Error('no retry is scheduled');
    });
    expect(reconnects.attempts).toBe(0);
  });

  it('a cancelled retry does not run; sleeping starts a fresh round', async () => {
    const { reconnects } = schedule({ ...POLICY, baseMs: 20, maxMs: 20 });
    let ran = false;
    reconnects.schedule(() => (ran = true));
    reconnects.reset();
    expect(reconnects.attempts).toBe(0);
    expect(reconnects.mayRetryNow).toBe(true);
    // Past the delay, by waiting on a later timer of the same length (another schedule's: this one's own next retry would clear it anyway).
    expect(await retried(schedule({ ...POLICY, baseMs: 20, maxMs: 20 }).reconnects)).toBe(true);
    expect(ran).toBe(false);
  });

  it('a connection lost soon after it came up keeps its attempts; one that stayed up long enough starts again', async () => {
    const { reconnects } = schedule();
    expect(await retried(reconnects)).toBe(true);
    reconnects.connected();
    reconnects.lost();
    expect(reconnects.attempts).toBe(1);
    reconnects.connected();
    const up = Date.now();
    expect(await waitFor(() => Date.now() - up >= POLICY.stableMs, 10_000, 5)).toBe(true);
    reconnects.lost();
    expect(reconnects.attempts).toBe(0);
  });

  it('a listing starts a new round only after the attempts ran out and a cool-down passed, one round at a time', async () => {
    const { reconnects } = schedule();
    expect(reconnects.revives()).toBe(false); // not given up: the schedule is still running
    for (let attempt = 1; attempt <= 3; attempt++) expect(await retried(reconnects)).toBe(true);
    const before = Date.now();
    reconnects.schedule(() => {}); // gives up (no timer)
    const coolDown = coolDownMs(POLICY);
    // Times given, not waited for: the round ran out no sooner than `before`.
    expect(reconnects.revives(before + coolDown - 1)).toBe(false);
    expect(reconnects.revives(Date.now() + coolDown)).toBe(true);
    expect(reconnects.attempts).toBe(0);
    // The round it started runs: no other starts until it runs out too.
    expect(reconnects.revives(Date.now() + 60_000)).toBe(false);
  });
});

describe('coolDownMs', () => {
  it.each([
    ['the default schedule: its last delay', DEFAULT_BACKOFF, 8_000],
    ['capped delays: the cap', { baseMs: 250, maxMs: 1_000, maxAttempts: 6, stableMs: 0 }, 1_000],
    ['one attempt: its delay', { baseMs: 300, maxMs: 10_000, maxAttempts: 1, stableMs: 0 }, 300],
    ['no reconnecting: none', { baseMs: 0, maxMs: 0, maxAttempts: 0, stableMs: 0 }, 0],
  ] as const)('%s', (_what, policy, expected) => {
    expect(coolDownMs(policy)).toBe(expected);
  });
});
