import { Listeners } from '../core/listeners.js';

/** Work in flight, counted so that a close can wait for it to end (Upstream.retire). */
export class InFlight {
  private count = 0;
  private readonly drained = new Listeners();

  /** One more in flight until the returned function is called (once). */
  begin(): () => void {
    this.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.count === 0) this.drained.emit();
    };
  }

  /** Resolves once nothing is in flight, or after `graceMs`, whichever comes first. */
  async ended(graceMs: number): Promise<void> {
    if (this.count === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, graceMs);
      const off = this.drained.on(finish);
      function finish() {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }
}
