import { describe, expect, it } from 'vitest';
import { ClientStates } from '../../src/proxy/client-state.js';
import { FakeUpstream } from './fake-upstreams.js';

function statesOf(upstreams: FakeUpstream[], owner = upstreams[0]) {
  return new ClientStates(upstreams, async (uri) => (uri.startsWith('known:') ? owner : undefined));
}

describe('ClientStates', () => {
  it('keeps levels and the subscriptions of servers that stay when a reload changes the servers; tells new servers the level', async () => {
    const a = new FakeUpstream('a', []);
    const b = new FakeUpstream('b', []);
    const c = new FakeUpstream('c', []);
    let owner = a;
    const states = new ClientStates([a, b], async () => owner);
    const one = {};
    await states.setLogLevel(one, 'info');
    await states.subscribe(one, 'known:a');
    owner = b;
    await states.subscribe(one, 'known:b');
    states.retarget([a, c]);
    await new Promise((r) => setImmediate(r));
    expect(c.levels).toEqual(['info']);
    expect(b.levels).toEqual(['info']); // b is not told again
    expect(states.subscribed(one, 'known:a')).toBe(true);
    expect(states.subscribed(one, 'known:b')).toBe(false); // its server is gone
    expect(states.wantsLog(one, 'debug')).toBe(false);
  });

  it('asks the servers for the most verbose level any client wants, and lets each client filter by its own', async () => {
    const a = new FakeUpstream('a', []);
    const states = statesOf([a]);
    const one = {};
    const two = {};
    expect(states.wantsLog(one, 'debug')).toBe(true); // no level set: everything
    await states.setLogLevel(one, 'error');
    await states.setLogLevel(two, 'info');
    expect(a.levels).toEqual(['error', 'info']);
    expect(states.wantsLog(one, 'warning')).toBe(false);
    expect(states.wantsLog(two, 'warning')).toBe(true);
    await states.detach(two);
    expect(a.levels.at(-1)).toBe('error'); // the level two wanted no longer counts
  });

  it('subscribes the owning server once per URI, and unsubscribes when the last client leaves', async () => {
    const a = new FakeUpstream('a', []);
    const states = statesOf([a]);
    const one = {};
    const two = {};
    await states.subscribe(one, 'known:x');
    await states.subscribe(two, 'known:x');
    expect(a.subscriptions).toEqual([['known:x', true]]);
    expect(states.subscribed(one, 'known:x')).toBe(true);
    await states.unsubscribe(one, 'known:x');
    expect(states.subscribed(one, 'known:x')).toBe(false);
    expect(a.subscriptions).toHaveLength(1);
    await states.detach(two);
    expect(a.subscriptions).toEqual([
      ['known:x', true],
      ['known:x', false],
    ]);
  });

  it.each([
    ['an unknown URI', 'other:y', true, 'Resource not found'],
    ['a server without subscriptions', 'known:y', false, 'does not take subscriptions'],
  ])('refuses %s with NOT_FOUND', async (_label, uri, takes, message) => {
    const a = new FakeUpstream('a', []);
    a.takesSubscriptions = takes;
    const states = statesOf([a]);
    await expect(states.subscribe({}, uri)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(message) });
    expect(states.subscribed({}, uri)).toBe(false);
  });
});
