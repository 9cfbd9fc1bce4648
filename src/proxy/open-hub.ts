import { createRegistry } from '../core/registry.js';
import type { ToolContext } from '../core/tool.js';
import { allTools } from '../tools/index.js';
import { ProxyHub } from './hub.js';

/** The default view: mcpkit's own tools plus every enabled upstream server of the context's config. */
export async function openHub(context: ToolContext, version: string, options: { listWaitMs?: number; quiet?: boolean } = {}): Promise<ProxyHub> {
  const config = await context.config();
  // A terminal command shows upstream stderr only when debugging; `serve` always forwards it.
  const stderr = options.quiet && context.env.MCPKIT_LOG_LEVEL !== 'debug' ? () => {} : undefined;
  return new ProxyHub({ local: createRegistry(allTools).tools, config, context, version, listWaitMs: options.listWaitMs, stderr });
}
