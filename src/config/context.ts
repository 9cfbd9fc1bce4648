import { createLogger, parseLogLevel, type Logger } from '../core/logger.js';
import type { Surface, ToolContext } from '../core/tool.js';
import { locateConfig } from './locate.js';
import type { McpkitConfig } from './schema.js';

export interface ContextOptions {
  configFlag?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  surface: Surface;
  logger?: Logger;
  /** A long-running process (serve): gives tools a `processCache`. */
  longLived?: boolean;
}

/** What every handler gets: the config (loaded once, on first use), a stderr logger and a clock. */
export function createToolContext(options: ContextOptions): ToolContext {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const configLocation = locateConfig({ flag: options.configFlag, env, cwd });
  let loading: Promise<McpkitConfig> | undefined;
  return {
    configLocation,
    env,
    cwd,
    surface: options.surface,
    logger: options.logger ?? createLogger(parseLogLevel(env.MCPKIT_LOG_LEVEL)),
    // yaml and the checks load only when a tool first needs the config.
    config: () => (loading ??= import('./load.js').then(({ loadConfig }) => loadConfig(configLocation, env))),
    now: () => new Date(),
    ...(options.longLived ? { processCache: new Map<string, unknown>() } : {}),
  };
}
