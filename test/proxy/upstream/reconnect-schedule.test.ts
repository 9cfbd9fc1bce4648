import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackoffPolicy } from '../../../src/core/backoff.js';
import { coolDownMs, REVIVAL_COOL_DOWN_CAP_MS, ReconnectSchedule } from '../../../src/proxy/upstream/reconnect-schedule.js';
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

/** Spends a whole round (every scheduled retry run), then gives up; returns when it gave up (performance.now). */
async function runOut(reconnects: ReconnectSchedule, policy = POLICY): Promise<number> {
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) expect(await retried(reconnects)).toBe(true);
  const before = performance.now();
  reconnects.schedule(() => {}); // gives up (no timer)
  return before;
}

afterEach(() => {
  vi.restoreAllMocks();
});

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
    const up = performance.now();
    expect(await waitFor(() => performance.now() - up >= POLICY.stableMs, 10_000, 5)).toBe(true);
    reconnects.lost();
    expect(reconnects.attempts).toBe(0);
  });

  it('a listing starts a new round only after the attempts ran out and a cool-down passed, one round at a time', async () => {
    const { reconnects } = schedule();
    expect(reconnects.revives()).toBe(false); // not given up: the schedule is still running
    const before = await runOut(reconnects);
    const coolDown = coolDownMs(POLICY);
    // Times given, not waited for: the round ran out no sooner than `before`.
    expect(reconnects.revives(before + coolDown - 1)).toBe(false);
    expect(reconnects.revives(performance.now() + coolDown)).toBe(true);
    expect(reconnects.attempts).toBe(0);
    // The round it started runs: no other starts until it runs out too.
    expect(reconnects.revives(performance.now() + 60_000)).toBe(false);
  });

  it('each round that runs out doubles the cool-down before a listing starts another; connecting starts it over', async () => {
    const policy: BackoffPolicy = { ...POLICY, baseMs: 100, maxMs: 100 };
    const { reconnects, lines } = schedule(policy);
    const first = coolDownMs(policy);
    expect(first).toBe(100);
    // Delays of 100 ms: a round runs out in some 300 ms, so each round is run with the timers, and the cool-downs are given.
    let ranOut = await runOut(reconnects, policy);
    expect(lines.at(-1)).toContain('a listing 100 ms from now');
    expect(reconnects.revives(ranOut + first - 1)).toBe(false);
    expect(reconnects.revives(performance.now() + first)).toBe(true);
    ranOut = await runOut(reconnects, policy);
    expect(lines.at(-1)).toContain('a listing 200 ms from now');
    // The second round failed too: the first cool-down is no longer enough.
    expect(reconnects.revives(ranOut + 2 * first - 1)).toBe(false);
    expect(reconnects.revives(performance.now() + 2 * first)).toBe(true);
    ranOut = await runOut(reconnects, policy);
    expect(reconnects.revives(ranOut + 4 * first - 1)).toBe(false);
    // A call of its tools starts a round at once, whatever the cool-down; when that one runs out, the wait doubles again.
    expect(reconnects.startsNewRound()).toBe(true);
    ranOut = await runOut(reconnects, policy);
    expect(reconnects.revives(ranOut + 8 * first - 1)).toBe(false);
    expect(reconnects.revives(performance.now() + 8 * first)).toBe(true);
    // The server connected (then went down again): its next round that runs out waits the first cool-down only.
    reconnects.connected();
    reconnects.lost();
    ranOut = await runOut(reconnects, policy);
    expect(lines.at(-1)).toContain('a listing 100 ms from now');
    expect(reconnects.revives(ranOut + first - 1)).toBe(false);
    expect(reconnects.revives(performance.now() + first)).toBe(true);
  });

  it('an attempt that fails after the round ran out is no second round run out', async () => {
    const policy: BackoffPolicy = { ...POLICY, baseMs: 50, maxMs: 50, maxAttempts: 1 };
    const { reconnects, lines } = schedule(policy);
    await runOut(reconnects, policy);
    reconnects.schedule(() => {}); // an attempt made meanwhile (a listing's) failed: still given up
    expect(lines.filter((l) => l.includes('giving up')).at(-1)).toContain('a listing 50 ms from now');
    // The cool-down is the first one, from that attempt on.
    expect(reconnects.revives(performance.now() + coolDownMs(policy))).toBe(true);
  });

  it.each([
    ['forward', 86_400_000],
    ['back', -86_400_000],
  ])('a wall-clock jump %s a day neither revives at once nor never', async (_way, jump) => {
    // A cool-down long enough that the check right after the round runs out comes before it ends
    // on a loaded machine too (20 ms once passed between the two).
    const policy: BackoffPolicy = { ...POLICY, baseMs: 300, maxMs: 300, maxAttempts: 1 };
    const { reconnects } = schedule(policy);
    await runOut(reconnects, policy);
    const wall = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(wall + jump);
    expect(reconnects.revives()).toBe(false); // the cool-down has not passed
    const ranOut = performance.now();
    expect(await waitFor(() => performance.now() - ranOut > 2 * coolDownMs(policy), 10_000, 5)).toBe(true);
    expect(reconnects.revives()).toBe(true);
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

  const CAPPED = { baseMs: 250, maxMs: 1_000, maxAttempts: 6, stableMs: 0 };
  const SLOW = { baseMs: 400_000, maxMs: 400_000, maxAttempts: 2, stableMs: 0 };
  it.each([
    ['the default schedule, after the first round: its last delay', DEFAULT_BACKOFF, 1, 8_000],
    ['no round counted yet: as after the first', DEFAULT_BACKOFF, 0, 8_000],
    ['after the second: doubled', DEFAULT_BACKOFF, 2, 16_000],
    ['after the third: doubled again', DEFAULT_BACKOFF, 3, 32_000],
    ['after the sixth: 256 s', DEFAULT_BACKOFF, 6, 256_000],
    ['after the seventh: the cap', DEFAULT_BACKOFF, 7, REVIVAL_COOL_DOWN_CAP_MS],
    ['after a thousand: still the cap', DEFAULT_BACKOFF, 1_000, REVIVAL_COOL_DOWN_CAP_MS],
    ['capped delays, after the third: four times the cap of the delays', CAPPED, 3, 4_000],
    ['a schedule whose longest delay passes the cap: that delay, never less', SLOW, 5, 400_000],
    ['no reconnecting: none, however many', { baseMs: 0, maxMs: 0, maxAttempts: 0, stableMs: 0 }, 9, 0],
    ['delays of 0: none, however many', { baseMs: 0, maxMs: 0, maxAttempts: 3, stableMs: 0 }, 2_000, 0],
  ] as const)('rounds run out: %s', (_what, policy, rounds, expected) => {
    expect(coolDownMs(policy, rounds)).toBe(expected);
  });

  it('the cap is 5 minutes', () => {
    expect(REVIVAL_COOL_DOWN_CAP_MS).toBe(300_000);
  });
});
