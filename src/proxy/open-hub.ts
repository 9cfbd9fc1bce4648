import { dirname } from 'node:path';
import { createRegistry } from '../core/registry.js';
import type { ToolContext } from '../core/tool.js';
import { allTools } from '../tools/index.js';
import { ProxyHub } from './hub.js';
import type { Upstream } from './upstream.js';
import { resolveView } from './view.js';

export interface OpenHubOptions {
  /** A named view from tool_views; the default view (everything) without it. */
  view?: string;
  listWaitMs?: number;
  /** Terminal commands show upstream stderr only when MCPKIT_LOG_LEVEL=debug; `serve` always forwards it. */
  quiet?: boolean;
  upstreams?: Map<string, Upstream>;
}

export async function openHub(context: ToolContext, version: string, options: OpenHubOptions = {}): Promise<ProxyHub> {
  const config = await context.config();
  const offered = createRegistry(allTools).tools.filter((tool) => tool.available?.(config, context.env) ?? true);
  const view = resolveView(config, options.view, offered);
  const stderr = options.quiet && context.env.MCPKIT_LOG_LEVEL !== 'debug' ? () => {} : undefined;
  const baseDir = dirname(context.configLocation.path);
  return new ProxyHub({ view, context, version, listWaitMs: options.listWaitMs, stderr, upstreams: options.upstreams, baseDir });
}
