import { NO_RECONNECT } from '../../core/backoff.js';
import { version } from '../../core/version.js';
import type { ServerConfig } from '../../config/schema.js';
import type { UpstreamOAuth } from '../../auth/upstream-oauth.js';
import type { Upstream } from '../../proxy/upstream.js';
import type { ToolContext } from '../../tool/context.js';

/**
 * Connects to one configured server for a single look (server test, set-tools' name check, a
 * login's probe), never reconnecting, its stderr kept out of the terminal, and closes it
 * whatever happens. A slow start is announced like any long wait.
 */
export async function withServer<T>(
  ctx: ToolContext,
  name: string,
  config: ServerConfig,
  use: (upstream: Upstream) => Promise<T>,
  oauth?: UpstreamOAuth,
): Promise<T> {
  const { Upstream } = await import('../../proxy/upstream.js');
  const upstream = new Upstream({
    name,
    config,
    logger: ctx.logger,
    version: version(),
    stderr: () => {},
    backoff: NO_RECONNECT,
    waiting: (message) => ctx.waiting(message),
    ...(oauth ? { oauth } : {}),
  });
  try {
    return await use(upstream);
  } finally {
    await upstream.close();
  }
}
