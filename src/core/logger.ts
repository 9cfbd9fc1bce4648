import { printableText } from './printable.js';
import { redact } from './redact.js';

/** Logs go to stderr only: stdout belongs to command output and, under `serve`, to the protocol. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'warn'): LogLevel {
  return value !== undefined && value in RANK ? (value as LogLevel) : fallback;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const at = (lvl: Exclude<LogLevel, 'silent'>) => (message: string) => {
    // What a message quotes (a server's error, a client's name) may hold escape sequences: shown as text.
    if (RANK[lvl] >= RANK[level]) write(`mcpkit ${lvl}: ${printableText(redact(message))}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
