import type { AuditedCall, CallObserver } from './auditor.js';

export interface CallQueueOptions {
  /** How long an ended call may wait before the observers hear of it (default 25 ms). */
  batchMs?: number;
  /** Calls waiting beyond which they are told at once, so the queue stays small. */
  maxQueued?: number;
}

/**
 * The observers of serve (audit log, metrics) hear of ended calls in batches. A call's reply only
 * notes when it ended; the audit line and the metric labels are made later, many in a row. Made
 * one at a time between replies, the same work cost several times as much CPU (its code and data
 * gone cold by each next call); in serve --http that was a tenth of the calls a second.
 */
export class CallQueue implements CallObserver {
  private readonly observers: CallObserver[] = [];
  private queued: AuditedCall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly batchMs: number;
  private readonly maxQueued: number;

  constructor(options: CallQueueOptions = {}) {
    this.batchMs = options.batchMs ?? 25;
    this.maxQueued = options.maxQueued ?? 1_000;
  }

  /** One more observer, told of every call that ends from now on. */
  add(observer: CallObserver): void {
    this.observers.push(observer);
  }

  get size(): number {
    return this.observers.length;
  }

  /** Notes when the call ended (its duration and time are of now, not of when it is told). */
  record(call: AuditedCall): void {
    call.finished ??= performance.now();
    call.endedAt ??= Date.now();
    this.queued.push(call);
    if (this.queued.length >= this.maxQueued) this.drain();
    else this.timer ??= setTimeout(() => this.drain(), this.batchMs);
  }

  /** Tells the observers of every waiting call now (before a scrape, and at close). */
  drain(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const calls = this.queued;
    this.queued = [];
    for (const observer of this.observers) {
      // An observer's fault must not stop serve (this runs on a timer) nor the others' lines.
      if (observer.recordAll) {
        try {
          observer.recordAll(calls);
        } catch {
          /* the batch is lost to this observer, not counted twice */
        }
        continue;
      }
      for (const call of calls) {
        try {
          observer.record(call);
        } catch {
          /* the next call's line still goes */
        }
      }
    }
  }
}
