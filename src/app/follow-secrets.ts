import type { LiveConfig } from './live-config.js';
import type { Logger } from '../core/logger.js';

/** How often the keyring's secrets are read again when the config does not say (serve.keyring_poll_ms). */
export const KEYRING_POLL_MS = 30_000;

interface Watch {
  close(): void;
}

export interface FollowSecretsOptions {
  live: Pick<LiveConfig, 'servedSecrets' | 'loaded' | 'reloaded'>;
  /** Reads the config and its secrets again; the servers whose values changed restart (config/reload-plan.ts). */
  reload: (reason: string) => void;
  logger: Logger;
}

/**
 * Serve follows the secrets its config uses, as it follows the file. A `${file:}` secret may live
 * outside the config's folder (/run/secrets, a Kubernetes Secret swapped by a `..data` link
 * rename): each file gets a watch of its own folder and of its target's (config/config-watcher.ts
 * does both). The keyring tells no one of a change, and `mcpkit secret set` cannot know which
 * serve (stdio under an editor, a service, another user's) uses a secret, so serve asks the
 * keyring again every serve.keyring_poll_ms (one D-Bus call per secret the config names) and on
 * SIGHUP. Either way the config is reloaded, and only the servers whose values changed restart.
 * Returns what stops it.
 */
export function followSecrets(options: FollowSecretsOptions): () => void {
  const watches = new Map<string, Watch>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const watchFiles = async () => {
    const wanted = new Set(options.live.servedSecrets?.files ?? []);
    for (const [file, watch] of watches) {
      if (wanted.has(file)) continue;
      watch.close();
      watches.delete(file);
    }
    const { ConfigWatcher } = await import('../config/config-watcher.js');
    for (const file of wanted) {
      if (stopped || watches.has(file)) continue;
      const watch = new ConfigWatcher({
        path: file,
        changed: () => options.reload(`the secret file ${file} changed`),
        failed: (reason) => options.logger.warn(`the secret file ${file} is not watched (${reason}); send SIGHUP after changing it`),
        missing: (folder) => options.logger.warn(`the folder ${folder} of the secret file ${file} does not exist: not watched (SIGHUP reads it again)`),
      });
      watches.set(file, watch);
      await watch.start();
    }
  };

  const pollKeyring = async () => {
    const served = options.live.servedSecrets;
    if (stopped || !served?.keyring.length) return;
    const { keyringDigest } = await import('../config/secrets/secret-sources.js');
    const now = await keyringDigest(served.keyring);
    // Compared with what the served config was made with: a reload that changed nothing leaves them equal.
    if (!stopped && now !== options.live.servedSecrets?.keyringDigest) options.reload('a secret of the system keyring changed');
  };

  const schedule = () => {
    const every = options.live.loaded?.serve.keyring_poll_ms ?? KEYRING_POLL_MS;
    if (stopped || every === 0) return;
    timer = setTimeout(
      () =>
        void pollKeyring()
          .catch((error: Error) => options.logger.debug(`keyring poll: ${error.message}`))
          .finally(schedule),
      every,
    );
    timer.unref();
  };

  const follow = () => void watchFiles().catch((error: Error) => options.logger.warn(`the secret files are not watched: ${error.message}`));
  const unlisten = options.live.reloaded.on(() => {
    follow();
    // A new poll interval takes effect at once.
    clearTimeout(timer);
    schedule();
  });
  follow();
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
    unlisten();
    for (const watch of watches.values()) watch.close();
    watches.clear();
  };
}
