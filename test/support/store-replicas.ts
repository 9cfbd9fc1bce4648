import { stopChild } from '../helpers/cli.js';
import { serveHttpAsCli } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { writeConfig } from '../helpers/upstreams.js';
import { startRedis, type RunningRedis } from './redis-server.js';

/** A replica: where it serves, and what it said (its warnings and up, and its own lines). */
export interface Replica {
  url: string;
  stderr(): string;
}

/** A redis-server and two replicas of `serve --http` on one config whose serve.store is that server. */
export interface StoreReplicas {
  redis: RunningRedis;
  replicas: Replica[];
  config: string;
  /** Ends the replicas, then the store (in a file's afterAll: whatever started). */
  stop(): Promise<void>;
}

/**
 * `configOf(url)` is the config, given the store's URL (serve.store.url). The first replica serves
 * in this process (helpers/in-process.ts: `serve --http`'s code, with an environment of its own),
 * the second is a process: what one replica learns reaches the other only through the store, as
 * between two machines, and what is asked of each is its answers and what it says, not its process.
 */
export async function startStoreReplicas(configOf: (storeUrl: string) => object): Promise<StoreReplicas> {
  const redis = await startRedis();
  const config = writeConfig(configOf(redis.url));
  const [here, there] = await Promise.allSettled([serveHttpAsCli(config), serveHttpChild(config)]);
  const stop = async () => {
    await Promise.allSettled([here.status === 'fulfilled' && here.value.close(), there.status === 'fulfilled' && stopChild(there.value.child)]);
    await redis.stop();
  };
  if (here.status === 'rejected' || there.status === 'rejected') {
    await stop();
    throw here.status === 'rejected' ? here.reason : (there as PromiseRejectedResult).reason;
  }
  const inProcess = here.value;
  return { redis, replicas: [{ url: inProcess.url, stderr: () => inProcess.lines.join('\n') }, there.value], config, stop };
}
