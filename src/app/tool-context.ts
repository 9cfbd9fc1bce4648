import type { McpkitConfig } from '../config/schema/schema.js';
import { SessionState, type ToolContext } from '../tool/context.js';
import type { CallScope, OpenHubOptions, ViewTarget } from './runtime-options.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { ConfigSource } from '../config/locate.js';
import type { Logger } from '../core/logger.js';
import type { OwnFiles } from '../config/files/own-files.js';
import type { OpenedView, Policy, Surface, ViewCallPort } from '../tool/context.js';

/** What a tool's context reads of its runtime (./runtime.ts), the way anyone may. */
export interface ContextSource {
  config(): Promise<McpkitConfig>;
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  readonly surface: Surface;
  readonly policy: Policy;
  withHub<T>(view: ViewTarget, use: (hub: ProxyHub) => Promise<T>, options?: OpenHubOptions): Promise<T>;
  withServer: ToolContext['servers']['with'];
  readonly configs: { reload(reason: string): Promise<unknown>; ownFiles(): OwnFiles };
}

/** What a tool's context needs of its runtime beyond what the runtime shows anyone. */
export interface ContextParts {
  configOrDefaults(): Promise<McpkitConfig>;
  waiting(message: string): void;
  lastListing: ToolContext['servers']['lastListing'];
  /** serve follows its config: an edit by its own tools is served before the tool answers. */
  followed(): boolean;
  cache(): Map<string, unknown> | undefined;
}

/** The context a handler gets from a runtime, for one client's session (a new one when the scope has none). */
export function toolContext(runtime: ContextSource, scope: CallScope, parts: ContextParts): ToolContext {
  const cache = parts.cache();
  return {
    config: scope.createsConfig ? () => parts.configOrDefaults() : () => runtime.config(),
    configLocation: runtime.configLocation,
    env: scope.env ?? runtime.env,
    cwd: scope.cwd ?? runtime.cwd,
    logger: runtime.logger,
    waiting: (message) => parts.waiting(message),
    surface: runtime.surface,
    // Read on use: serve decides the policy anew on each reload.
    get policy() {
      return runtime.policy;
    },
    session: scope.session ?? new SessionState(),
    ...(cache ? { cache } : {}),
    views: {
      with: async (view, use, options) => runtime.withHub(view, (hub) => withOpenedView(hub, scope.viewCalls, use), options),
    },
    servers: {
      with: (name, config, use, options) => runtime.withServer(name, config, use, options),
      lastListing: parts.lastListing,
    },
    mcpkitNames: async () => {
      const { toolGroups, allTools } = await import('../tools/index.js');
      return { groups: toolGroups.map((g) => g.name), tools: allTools.map((t) => t.name) };
    },
    now: () => new Date(),
    ownFiles: () => runtime.configs.ownFiles(),
    ...(parts.followed() ? { configWritten: () => runtime.configs.reload('an edit by an mcpkit tool').then(() => undefined) } : {}),
    ...(scope.signal ? { signal: scope.signal } : {}),
    ...(scope.requestId !== undefined ? { requestId: scope.requestId } : {}),
    ...(scope.progress ? { progress: scope.progress } : {}),
    ...(scope.emit ? { emit: scope.emit } : {}),
  };
}

/**
 * A view opened for one use: its calls through the port the front end gave, opened by the first
 * call and closed after the use (a use that calls nothing opens none), else refused.
 */
async function withOpenedView<T>(hub: ProxyHub, viewCalls: CallScope['viewCalls'], use: (opened: OpenedView) => Promise<T>): Promise<T> {
  const { openedView } = await import('../proxy/opened-view.js');
  let port: Promise<ViewCallPort> | undefined;
  const calls: Pick<ViewCallPort, 'call'> | undefined = viewCalls && { call: async (...call) => (await (port ??= viewCalls(hub))).call(...call) };
  try {
    return await use(openedView(hub, calls));
  } finally {
    await (await port?.catch(() => undefined))?.close();
  }
}
