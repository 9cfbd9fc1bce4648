import { createToolContext } from '../config/context.js';
import { ToolError } from '../core/errors.js';
import type { ToolContext } from '../core/tool.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { Upstream } from '../proxy/upstream.js';
import { serveStdio } from './stdio.js';

export interface ServeOptions {
  configFlag?: string;
  view?: string;
  eager?: boolean;
  http?: boolean;
  host?: string;
  port?: string | number;
  token?: string;
  /** Hide the writing arango tools and refuse writing AQL (like arango.read_only). */
  readOnly?: boolean;
  version: string;
}

/**
 * `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. Exits the process
 * when the session ends (or on SIGINT/SIGTERM over HTTP), after closing every upstream, so no
 * child process outlives us.
 */
export async function runServe(options: ServeOptions): Promise<never> {
  // Read through the same setting as arango.read_only, by every tool and catalog of this process.
  if (options.readOnly) process.env.ARANGO_READ_ONLY = 'true';
  const context = createToolContext({ configFlag: options.configFlag, surface: 'mcp', longLived: true });
  const upstreams = new Map<string, Upstream>();
  const hubs = new Map<string, Promise<ProxyHub>>();
  const hubFor = (view: string | undefined) => {
    const key = view ?? '';
    let hub = hubs.get(key);
    if (!hub) {
      hub = import('../proxy/open-hub.js').then(({ openHub }) => openHub(context, options.version, { view, upstreams }));
      hubs.set(key, hub);
    }
    return hub;
  };
  let code = 0;
  try {
    await checkRoots(context);
    // A configured ArangoDB is connected to in the background (with the configured attempts), so
    // serve is up at once and a late database is still found (the arango seed's contract).
    void import('../tools/arango/shared.js').then(({ startArango }) => startArango(context)).catch(() => undefined);
    if (options.http) {
      await serveOverHttp(options, context, hubFor, upstreams);
    } else {
      if (options.eager || options.view) {
        // A named view is resolved before serving, so a typo fails at start, not on the first call.
        const ready = await hubFor(options.view);
        if (options.eager) void ready.warmUp();
      }
      await serveStdio({ hub: () => hubFor(options.view), context, version: options.version });
    }
  } catch (error) {
    const { errorObject } = await import('../core/errors.js');
    const e = errorObject(error);
    process.stderr.write(`mcpkit serve: ${e.message}${e.hint ? `\n${e.hint}` : ''}\n`);
    code = 1;
  } finally {
    await Promise.allSettled([...upstreams.values()].map((u) => u.close()));
  }
  process.exit(code);
}

/**
 * Fail fast (retrieve seed): configured roots that are missing, not folders or unreadable stop
 * `serve` before it answers anything. The config read here is the context's own (loaded once, and
 * reused by the first request); with no config file and no DOCS_ROOT/CODE_ROOT nothing is read.
 * A config that does not load is left for the first request to report, as before.
 */
async function checkRoots(context: ToolContext): Promise<void> {
  const fromEnv = context.env.DOCS_ROOT !== undefined || context.env.CODE_ROOT !== undefined;
  const { existsSync } = await import('node:fs');
  if (!fromEnv && !existsSync(context.configLocation.path)) return;
  const config = await context.config().catch(() => undefined);
  if (!config || (!fromEnv && !config.retrieve.roots)) return;
  const { loadRoots } = await import('../tools/retrieve/shared.js');
  await loadRoots(context);
}

function parsePort(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ToolError('INVALID_INPUT', `--port must be a whole number from 0 to 65535, got "${value}".`);
  }
  return port;
}

async function serveOverHttp(
  options: ServeOptions,
  context: ToolContext,
  hubFor: (view: string | undefined) => Promise<ProxyHub>,
  upstreams: Map<string, Upstream>,
): Promise<void> {
  const config = await context.config();
  const host = options.host ?? config.serve.host ?? '127.0.0.1';
  const port = parsePort(options.port ?? config.serve.port, 8000);
  const token = options.token ?? config.serve.token;
  if (!token && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    context.logger.warn(`serving on ${host} without a token: anyone who can reach this port can use every tool (set --token or serve.token)`);
  }
  const { serveHttp } = await import('./http.js');
  if (options.eager) void hubFor(undefined).then((h) => h.warmUp());
  const http = await serveHttp({
    host,
    port,
    token,
    context,
    version: options.version,
    hub: hubFor,
    views: Object.entries(config.tool_views).map(([name, v]) => ({ name, description: v.description, exposure: v.exposure ?? 'direct', tokens: v.tokens })),
    status: () => [...upstreams.values()].map((u) => u.status()),
  });
  process.stderr.write(`mcpkit serve: listening on ${http.url}/mcp (views: ${http.url}/views, health: ${http.url}/health)\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await http.close();
}
