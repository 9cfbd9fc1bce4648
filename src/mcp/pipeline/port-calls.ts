import { ToolError } from '../../core/errors.js';

/**
 * How long closing a port waits for the calls it cancelled to end. A cancelled call ends as soon
 * as its upstream request is abandoned (notifications/cancelled is sent); only one stuck before
 * its upstream (a server still starting) takes longer, and its line is then written for it.
 */
export const CLOSE_GRACE_MS = 3_000;

/**
 * One call through the port: settles once its audit line is written; `abandon` writes one for it
 * when it does not end in time. It may have to wait (its audit log still opening): close waits for
 * it, so it must end on its own, in bounded time.
 */
interface OpenCall {
  ended: Promise<unknown>;
  abandon: () => void | Promise<void>;
}

type Abandon = OpenCall['abandon'];

/**
 * The calls running through one terminal port (./terminal-calls.ts). A use of a view may end with
 * a call still running (a code run whose script returned without awaiting it, or that ran out of
 * time): closing the port cancels such calls and waits for each to end, so that every call started
 * through it has its audit line written before the log is closed. A call that has not ended within
 * `graceMs` of the cancel is abandoned (its line written as cancelled); a call after the close is
 * refused, never run unaudited.
 */
export class PortCalls {
  private readonly closing = new AbortController();
  private readonly open = new Set<OpenCall>();

  constructor(private readonly graceMs = CLOSE_GRACE_MS) {}

  /**
   * Runs one call: `run` gets the signal it runs under (its caller's, and the port's closing) and
   * a way to say how it is abandoned; what it returns settles once its line is written.
   */
  run<T>(name: string, own: AbortSignal | undefined, run: (signal: AbortSignal, onAbandon: (abandon: Abandon) => void) => Promise<T>): Promise<T> {
    if (this.closing.signal.aborted) return Promise.reject(closedPort(name));
    const signal = own ? AbortSignal.any([own, this.closing.signal]) : this.closing.signal;
    const call: OpenCall = { ended: Promise.resolve(), abandon: () => {} };
    const running = run(signal, (abandon) => (call.abandon = abandon));
    call.ended = running.catch(() => undefined).finally(() => this.open.delete(call));
    this.open.add(call);
    return running;
  }

  /** How many calls are running now. */
  get count(): number {
    return this.open.size;
  }

  /** Cancels the calls still running and waits for them to end, at most graceMs; the ones still running then are abandoned, and their lines waited for. */
  async close(): Promise<void> {
    this.closing.abort(new Error('the port was closed'));
    const left = [...this.open];
    if (!left.length) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.graceMs)));
    await Promise.race([Promise.all(left.map((call) => call.ended)), grace]);
    clearTimeout(timer);
    const abandoned = [...this.open].map((call) => call.abandon());
    this.open.clear();
    await Promise.allSettled(abandoned);
  }
}

/** A call through a port already closed: the use of the view it belonged to is over. */
function closedPort(name: string): ToolError {
  return new ToolError('UNAVAILABLE', `${name} was not called: the use of the view it was called through had ended.`, {
    hint: 'Await every tool call before the script returns.',
  });
}
