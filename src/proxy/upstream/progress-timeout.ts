/**
 * A call's timeout that progress keeps alive: it fires when the server has sent nothing for
 * `idleMs` (mcp_servers.NAME.timeout_ms), restarting at each progress notification, and in any
 * case at `totalMs` (max_total_ms) from the start, however much progress came. `signal` aborts
 * when either fires; `fired` says which. Timers only: the caller owns the request.
 */
export class ProgressTimeout {
  private readonly controller = new AbortController();
  private idle: NodeJS.Timeout | undefined;
  private readonly total: NodeJS.Timeout;
  fired: 'idle' | 'total' | undefined;

  constructor(
    readonly idleMs: number,
    readonly totalMs: number,
  ) {
    // Neither timer keeps a process alive by itself (a Ctrl-C'd command ends when its work does).
    this.total = setTimeout(() => this.fire('total'), totalMs).unref();
    this.arm();
  }

  get signal(): AbortSignal {
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
    return { timeout: this.totalMs + 1000, signal: signal ? AbortSignal.any([signal, this.signal]) : this.signal };
  }

  /** Progress came: the idle wait starts again. */
  touch(): void {
    if (this.fired) return;
    clearTimeout(this.idle);
    this.arm();
  }

  stop(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
  }

  private arm(): void {
    this.idle = setTimeout(() => this.fire('idle'), this.idleMs).unref();
  }

  private fire(which: 'idle' | 'total'): void {
    if (this.fired) return;
    this.fired = which;
    this.stop();
    this.controller.abort(Object.assign(new Error(`Request timed out (${which})`), { code: -32001 }));
  }
}
