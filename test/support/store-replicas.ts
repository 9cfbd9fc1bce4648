import { stopChild } from '../helpers/cli.js';
import { serveHttpChild } from '../helpers/serve.js';
import { writeConfig } from '../helpers/upstreams.js';
import { startRedis, type RunningRedis } from './redis-server.js';

type Replica = Awaited<ReturnType<typeof serveHttpChild>>;

/** A redis-server and two replicas of `serve --http` on one config whose serve.store is that server. */
export interface StoreReplicas {
  redis: RunningRedis;
  replicas: Replica[];
  config: string;
  /** Ends the replicas, then the store (in a file's afterAll: whatever started). */
  stop(): Promise<void>;
}

/** `configOf(url)` is the config, given the store's URL (serve.store.url). */
export async function startStoreReplicas(configOf: (storeUrl: string) => object): Promise<StoreReplicas> {
  const redis = await startRedis();
  const config = writeConfig(configOf(redis.url));
  const started = await Promise.allSettled([serveHttpChild(config), serveHttpChild(config)]);
  const replicas = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.allSettled(replicas.map((r) => stopChild(r.child)));
    await redis.stop();
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { redis, replicas, config, stop };
}
