/** The SDK's JSON-RPC code for a request that timed out. */
export const REQUEST_TIMEOUT = -32001;

export type TimeoutKind = 'idle' | 'total';

/**
 * The one timeout of a tools/call to a server, on either path (the SDK client's and the hot
 * path's forwarder): it fires when the server has sent nothing for `idleMs`
 * (mcp_servers.NAME.timeout_ms), restarting at each progress notification, and in any case at
 * the ceiling, `totalMs` (max_total_ms) from the start, however much progress came. A ceiling
 * below the idle wait is the idle wait. `fired` says which fired; `onFire` is told, and `signal`
 * aborts. Timers only: the caller owns the request.
 */
export class ProgressTimeout {
  private controller: AbortController | undefined;
  /** The idle wait's timer, armed from the start; undefined once stopped (its call ended, or it fired). */
  private idle: NodeJS.Timeout | undefined;
  /** The ceiling's timer, started by the first progress: until then the idle wait ends first, or with it. */
  private total: NodeJS.Timeout | undefined;
  private readonly started = performance.now();
  readonly ceilingMs: number;
  fired: TimeoutKind | undefined;

  constructor(
    readonly idleMs: number,
    totalMs: number,
    private readonly onFire?: (which: TimeoutKind) => void,
  ) {
    this.ceilingMs = Math.max(totalMs, idleMs);
    this.arm();
  }

  /** Aborts when the timeout fires. Made on first use: the hot path, which is told by `onFire`, never needs one. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.fired) this.controller.abort(this.reason(this.fired));
    }
    return this.controller.signal;
  }

  /** A progress listener that keeps the call alive, then tells `listener` (if any). */
  relay(listener?: (progress: { progress: number; total?: number; message?: string }) => void) {
    return (progress: { progress: number; total?: number; message?: string }) => {
      this.touch();
      listener?.(progress);
    };
  }

  /** The SDK request options of the call: its signal, and its own timeout as a backstop past ours. */
  options(signal: AbortSignal | undefined): { timeout: number; signal: AbortSignal } {
    return { timeout: this.ceilingMs + 1000, signal: signal ? AbortSignal.any([signal, this.signal]) : this.signal };
  }

  /** Progress came: the idle wait starts again. */
  touch(): void {
    // Stopped (its call ended, or it fired): progress that comes late starts no timer.
    if (this.idle === undefined) return;
    clearTimeout(this.idle);
    this.total ??= setTimeout(() => this.fire('total'), Math.max(0, this.ceilingMs - (performance.now() - this.started))).unref();
    this.arm();
  }

  stop(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
    this.idle = undefined;
  }

  /** What a request that timed out this way ends with, as a JSON-RPC error. */
  error(which: TimeoutKind): { code: number; message: string; total?: boolean } {
    return {
      code: REQUEST_TIMEOUT,
      message: `Request timed out after ${which === 'total' ? this.ceilingMs : this.idleMs} ms`,
      ...(which === 'total' ? { total: true } : {}),
    };
  }

  /** One timer per call that hears no progress (most): the idle wait, which is the ceiling when they are equal. */
  private arm(): void {
    // Neither timer keeps a process alive by itself (a Ctrl-C'd command ends when its work does).
    const which = this.total === undefined && this.idleMs >= this.ceilingMs ? 'total' : 'idle';
    const armed = setTimeout(() => {
      // A busy process runs a late timer before the input that came while it was busy: a progress
      // notification waiting there is read first (setImmediate runs after that input), and only a
      // wait it did not restart fires. Not unref'd: an unref'd immediate does not keep the loop from
      // blocking for input, so in an idle serve it ran only when the next thing came, the
      // server's late answer among them, which was then read first.
      setImmediate(() => {
        if (this.idle === armed) this.fire(which);
      });
    }, this.idleMs).unref();
    this.idle = armed;
  }

  private reason(which: TimeoutKind): Error {
    return Object.assign(new Error(`Request timed out (${which})`), { code: REQUEST_TIMEOUT });
  }

  private fire(which: TimeoutKind): void {
    if (this.fired) return;
    this.fired = which;
    this.stop();
    this.controller?.abort(this.reason(which));
    this.onFire?.(which);
  }
}
