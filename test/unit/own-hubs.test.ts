import { describe, expect, it } from 'vitest';
import { OwnHubs } from '../../src/app/own-hubs.js';
import { createLogger } from '../../src/core/logger.js';
import type { ProxyHub } from '../../src/proxy/hub.js';

/** A hub whose one upstream is awake or asleep, busy or not, last used at `lastUsed`; sleep() puts it to sleep. */
function hub(name: string, state: { awake: boolean; busy?: boolean; lastUsed: number }) {
  const upstream = {
    activity: () => ({ awake: state.awake, busy: state.busy === true, lastUsed: state.lastUsed }),
    sleep: async () => {
      if (state.busy) return false;
      state.awake = false;
      return true;
    },
  };
  return { name, state, hub: { upstreamList: () => [upstream] } as unknown as ProxyHub };
}

const quiet = createLogger('error');

describe('OwnHubs: clients own connections are a cache of at most cap awake hubs', () => {
  it.each([
    [
      'under the cap nothing sleeps',
      3,
      [
        { awake: true, lastUsed: 1 },
        { awake: true, lastUsed: 2 },
      ],
      [],
    ],
    [
      'over the cap the least recently used sleeps',
      2,
      [
        { awake: true, lastUsed: 5 },
        { awake: true, lastUsed: 2 },
      ],
      ['h1'],
    ],
    [
      'a busy hub is passed over for the next least recently used',
      1,
      [
        { awake: true, busy: true, lastUsed: 1 },
        { awake: true, lastUsed: 3 },
      ],
      ['h1'],
    ],
    [
      'asleep hubs do not count',
      1,
      [
        { awake: false, lastUsed: 1 },
        { awake: false, lastUsed: 2 },
      ],
      [],
    ],
    [
      'all busy: over the cap until calls end',
      1,
      [
        { awake: true, busy: true, lastUsed: 1 },
        { awake: true, busy: true, lastUsed: 2 },
      ],
      [],
    ],
  ] as const)('%s', async (_what, cap, states, slept) => {
    const own = new OwnHubs(() => cap, quiet);
    const hubs = states.map((s, i) => hub(`h${i}`, { ...s }));
    const waking = hub('waking', { awake: true, lastUsed: 0 });
    for (const h of [...hubs, waking]) own.add(h.hub);
    await own.woke(waking.hub);
    expect(waking.state.awake).toBe(true); // the hub that woke is never the one put to sleep
    expect(hubs.filter((h) => !h.state.awake && states[Number(h.name.slice(1))]!.awake).map((h) => h.name)).toEqual(slept);
  });

  it('a hub that left is not counted', async () => {
    const own = new OwnHubs(() => 1, quiet);
    const a = hub('a', { awake: true, lastUsed: 1 });
    const b = hub('b', { awake: true, lastUsed: 2 });
    own.add(a.hub);
    own.add(b.hub);
    own.delete(a.hub);
    await own.woke(b.hub);
    expect(a.state.awake).toBe(true);
    expect(own.awake()).toBe(1);
  });
});
