import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreSigner } from '../../src/store/store-signing.js';
import { type InProcessServe, serveHttpAsCli } from '../helpers/in-process.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/**
 * An attacker who can reach the store (no password on loopback) but has no serve.store.key: it
 * reads a replica's id from the lease keys and publishes on the replicas' channel a passed call of
 * config_show as the admin (caller token:serve), unsigned, with a made-up signature, as a captured
 * message played again, altered, and stale. The replica runs none of them (no reply comes back on
 * the channel) and says on stderr what it dropped. A message signed with the replicas' key is run:
 * the control that shows this test can see a call run. The replica serves in this process
 * (helpers/in-process.ts: `serve --http`'s code, with an environment of its own); what it says is
 * its log (warnings and up), where the drops are said.
 */

const withRedis = redisFor('attacks on the replicas’ channel');
const PREFIX = 'attacked';

describe.skipIf(!withRedis)('a forged, replayed, altered or stale message on the store’s channel', () => {
  let redis: RunningRedis;
  let replica: InProcessServe;
  let attacker: Redis;
  let listener: Redis;
  const replies = new Map<string, unknown>();

  beforeAll(async () => {
    redis = await startRedis();
    const config = writeConfig({
      mcp_servers: {},
      serve: {
        token: 'admin-token',
        exposure: 'direct',
        groups: ['config'],
        clients: { alice: { token: 'alice-token' } },
        store: { url: redis.url, prefix: PREFIX, key: STORE_KEY },
      },
    });
    replica = await serveHttpAsCli(config);
    attacker = new Redis(redis.url, { lazyConnect: true });
    listener = new Redis(redis.url, { lazyConnect: true });
    await Promise.all([attacker.connect(), listener.connect()]);
    await listener.subscribe(`${PREFIX}:tasks`);
    listener.on('message', (_channel: string, text: string) => {
      const heard = JSON.parse(text) as { b?: string; kind?: string; id?: string };
      // What the attacker reads of a reply: signed or not, its body is in clear.
      const message = (typeof heard.b === 'string' ? JSON.parse(heard.b) : heard) as { kind?: string; id?: string; outcome?: unknown };
      if (message.kind === 'reply' && message.id) replies.set(message.id, message.outcome);
    });
  }, 60_000);
  afterAll(async () => {
    attacker?.disconnect();
    listener?.disconnect();
    await replica?.close();
    await redis?.stop();
  });

  /** The replica's id, as anyone who can list keys reads it. */
  const holderId = async () => {
    const [lease] = await attacker.keys(`${PREFIX}:{lease:*}`);
    return /lease:([0-9a-f-]{36})/.exec(lease ?? '')![1]!;
  };
  const adminCall = (holder: string, from: string) => ({
    kind: 'call',
    id: randomUUID(),
    holder,
    from,
    path: '/mcp',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'config_show', arguments: {} } },
    headers: {},
    caller: { id: 'token:serve', via: 'serve-token' },
  });
  const publish = (text: string) => attacker.publish(`${PREFIX}:tasks`, text);
  const said = (text: string) => waitFor(() => replica.lines.join('\n').includes(text), 15_000);

  it('none of them runs config_show as the admin; each is dropped and said; a signed one runs', async () => {
    const holder = await holderId();
    const from = randomUUID();
    const channel = `${PREFIX}:tasks`;
    const wrongKey = new StoreSigner('not-the-replicas-key-0123456789abcdefXYZ', PREFIX);
    const rightKey = new StoreSigner(STORE_KEY, PREFIX);

    const unsigned = adminCall(holder, from);
    await publish(JSON.stringify(unsigned));
    expect(await said('serve.store: dropped a message on the channel: not signed by a replica')).toBe(true);

    const forged = adminCall(holder, from);
    await publish(wrongKey.seal('call', channel, from, forged, Date.now()));
    expect(await said('serve.store: dropped a message on the channel: its signature does not hold')).toBe(true);

    const stale = adminCall(holder, from);
    await publish(rightKey.seal('call', channel, from, stale, Date.now() - 10 * 60_000));
    expect(await said('serve.store: dropped a message on the channel: signed too long ago')).toBe(true);

    // The control: signed with the replicas' key, it is run and answered.
    const signed = adminCall(holder, from);
    const captured = rightKey.seal('call', channel, from, signed, Date.now());
    await publish(captured);
    expect(await waitFor(() => replies.has(signed.id), 15_000)).toBe(true);
    const shown = replies.get(signed.id) as { result?: { isError?: boolean } };
    expect(shown.result?.isError, JSON.stringify(shown)).toBeFalsy();
    expect(JSON.stringify(shown)).toContain(PREFIX); // the config, as config_show shows it

    // Captured and played again: dropped as a replay, not run twice.
    replies.delete(signed.id);
    await publish(captured);
    expect(await said('serve.store: dropped a message on the channel: heard before (a replay)')).toBe(true);

    // Captured and altered (another caller, another nonce): its signature no longer holds.
    const envelope = JSON.parse(captured) as { b: string; n: string };
    const altered = { ...signed, id: randomUUID(), caller: { id: 'client:alice', via: 'token', client: 'alice' } };
    await publish(JSON.stringify({ ...envelope, n: 'fresh-nonce', b: JSON.stringify(altered) }));

    // A second control, heard after every attack: once it is answered, the attacks had their turn.
    const last = adminCall(holder, from);
    await publish(rightKey.seal('call', channel, from, last, Date.now()));
    expect(await waitFor(() => replies.has(last.id), 15_000)).toBe(true);
    for (const attack of [unsigned, forged, stale, altered]) expect(replies.has(attack.id), attack.id).toBe(false);
    expect(replies.has(signed.id), 'the replay').toBe(false);
  }, 90_000);
});
