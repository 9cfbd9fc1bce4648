import { Listeners } from '../../core/listeners.js';

/** Work in flight, counted so that a close can wait for it to end (Upstream.retire). */
export class InFlight {
  private counted = 0;
  /** When the last piece of work began (Date.now(); 0: never). */
  lastBegun = 0;
  private readonly drained = new Listeners();

  get count(): number {
    return this.counted;
  }

  /** One more in flight until the returned function is called (once). */
  begin(): () => void {
    this.counted++;
    this.lastBegun = Date.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.counted === 0) this.drained.emit();
    };
  }

  /** Resolves once nothing is in flight, or after `graceMs`, whichever comes first. */
  async ended(graceMs: number): Promise<void> {
    if (this.counted === 0) return;
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
