import type { LoggingLevel } from '@modelcontextprotocol/server';

/** The MCP log levels, most verbose first. Pure. */
const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a message at `level` passes a client's `threshold` (no threshold set: everything passes). */
export function logPasses(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  return threshold === undefined || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** The level to ask a server shared by several clients for: the most verbose any of them wants. */
export function mostVerbose(levels: Iterable<LoggingLevel>): LoggingLevel | undefined {
  let best: number | undefined;
  for (const level of levels) {
    const at = LOG_LEVELS.indexOf(level);
    if (best === undefined || at < best) best = at;
  }
  return best === undefined ? undefined : LOG_LEVELS[best];
}
