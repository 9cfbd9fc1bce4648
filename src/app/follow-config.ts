import type { McpkitConfig } from '../config/schema/schema.js';
import type { Policy } from '../tool/context.js';
import type { Runtime } from './runtime.js';

/**
 * A long-running process (serve, the daemon) follows its config: the file's folder is watched (config/config-watcher.ts), SIGHUP reloads
 * too (reading the keyring's secrets again), and so does an edit by its own tools (ToolContext.configWritten), or a change of
 * a secret it uses (./follow-secrets.ts). Returns what stops it.
 */
export function followConfig(runtime: Runtime, policyFor: (config: McpkitConfig) => Promise<Policy>): () => void {
  const reload = (reason: string) =>
    void runtime.configs.reload(reason).catch((error: Error) => runtime.logger.error(`config reload failed: ${error.message}`));
  const onHup = () => reload('SIGHUP');
  process.on('SIGHUP', onHup);
  // Hubs made from now on follow the config (synchronously); the watch is set up while serve answers.
  let watcher: { close(): void } | undefined;
  let stopSecrets: (() => void) | undefined;
  let stopped = false;
  void (async () => {
    await runtime.configs.follow(policyFor);
    const [{ ConfigWatcher }, { pinFilePath }, { followSecrets }] = await Promise.all([
      import('../config/config-watcher.js'),
      import('../config/files/pin-file.js'),
      import('./follow-secrets.js'),
    ]);
    if (stopped) return;
    // The secrets it uses (${file:}, ${keyring:}) are followed too: a change restarts the servers that use them.
    stopSecrets = followSecrets({ live: runtime.configs.live, reload, logger: runtime.logger });
    const made = new ConfigWatcher({
      path: runtime.configLocation.path,
      // An approval (mcpkit server approve) rewrites the tool pins beside the config.
      companions: [pinFilePath(runtime.configLocation.path)],
      changed: () => reload('the file changed'),
      failed: (reason) => runtime.logger.warn(`the config is not watched (${reason}); send SIGHUP to reload it`),
      missing: (folder) => runtime.logger.debug(`the config's folder ${folder} does not exist: not watched (SIGHUP reloads)`),
    });
    watcher = made;
    await made.start();
  })().catch((error: Error) => runtime.logger.warn(`the config is not watched: ${error.message}; send SIGHUP to reload it`));
  return () => {
    stopped = true;
    watcher?.close();
    stopSecrets?.();
    process.off('SIGHUP', onHup);
  };
}
