import { createToolContext } from '../config/context.js';
import type { ProxyHub } from '../proxy/hub.js';
import { serveStdio } from './stdio.js';

export interface ServeOptions {
  configFlag?: string;
  version: string;
}

/**
 * `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. The default view:
 * mcpkit's own tools plus every enabled upstream server. Exits the process when the session ends,
 * after closing every upstream (so no child process outlives us).
 */
export async function runServe(options: ServeOptions): Promise<never> {
  const context = createToolContext({ configFlag: options.configFlag, surface: 'mcp' });
  let hub: Promise<ProxyHub> | undefined;
  const getHub = () => (hub ??= import('../proxy/open-hub.js').then(({ openHub }) => openHub(context, options.version)));
  let code = 0;
  try {
    await serveStdio({ hub: getHub, context, version: options.version });
  } catch (error) {
    context.logger.error(`serve: ${(error as Error).message}`);
    code = 1;
  } finally {
    if (hub) await (await hub.catch(() => undefined))?.close();
  }
  process.exit(code);
}
