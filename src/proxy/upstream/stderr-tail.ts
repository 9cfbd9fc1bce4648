import { printable } from '../../core/printable.js';
import { redact } from '../../core/redact.js';
import type { UpstreamOptions } from './upstream-options.js';

/** How many of a server's last stderr lines are kept for its errors and /health. */
const STDERR_LINES = 20;

/**
 * What a stdio server says on stderr, as mcpkit passes it on: masked as it comes in (a server that
 * prints its environment must not put a ${VAR} secret into /health, errors or serve's log), its
 * escape sequences shown as text, the last lines kept. Apart from ./upstream-connection.ts because
 * it is what the server says, not how the connection stands: it outlives every reconnect.
 */
export class StderrTail {
  /** The last lines, masked: what an UNAVAILABLE error and /health show. */
  readonly lines: string[] = [];

  constructor(private readonly options: Pick<UpstreamOptions, 'name' | 'stderr'>) {}

  /** One line as the server wrote it; passed on to mcpkit's stderr (`options.stderr`), prefixed with the server's name. */
  add(raw: string): void {
    const line = printable(redact(raw));
    this.lines.push(line);
    if (this.lines.length > STDERR_LINES) this.lines.shift();
    this.options.stderr?.(`[${this.options.name}] ${line}\n`);
  }
}
