/**
 * A call's revocation (call-chain.ts `revocable`): the caller's credential was taken away while
 * the call ran. The hot path only listens for it; an AbortSignal, which costs an AbortController
 * and its event target per call, is made only for a path that passes one on (the router's calls,
 * a code run's), so an HTTP call pays for revocation what it uses.
 */
export class Revocation {
  private listeners: (() => void)[] | undefined;
  private controller: AbortController | undefined;
  private reason: unknown;
  private done = false;

  /** Whether the call was revoked. */
  get aborted(): boolean {
    return this.done;
  }

  /** The revocation as an AbortSignal, aborted with its reason (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Calls `listener` once when the call is revoked (not for a revocation already past, as an abort event); returns what stops listening. */
  on(listener: () => void): () => void {
    if (this.done) return () => {};
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners!.splice(at, 1);
    };
  }

  /** Revokes the call: its signal aborts with `reason`, then each listener is told, once. */
  revoke(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    listeners?.forEach((listener) => listener());
  }
}
