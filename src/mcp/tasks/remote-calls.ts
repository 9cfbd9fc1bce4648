import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/logger.js';
import type { CallMessage, SharedStore, StoreMessage } from '../../store/shared-store.js';
import type { Outcome } from '../pipeline/call-round.js';

type PassedCall = Extract<CallMessage, { kind: 'call' }>;

/** How often a replica waiting for another's answer checks that the other still lives. */
const HOLDER_CHECK_MS = 2_000;

/**
 * Calls one replica passes to another over serve.store. A 2026-07-28 client answering a 2025
 * server's question (sampling, elicitation) retries its call with a request state that only the
 * replica that parked the call can go on with; the state names that replica (proxy/eras/input-
 * bridge.ts), so a retry that reached another one is passed to it, run there as the caller the
 * first replica let in, and its answer (the result, or the next question) comes back. A balancer
 * then needs no map for it. Both messages are signed with serve.store.key (store/store-channel.ts):
 * a call is run only when a replica sent it, and an answer is taken only from the replica the call
 * was passed to; whoever can merely write to the store can do neither.
 */
export class RemoteCalls {
  /** Calls passed and not yet answered: the replica each was passed to, and what takes its answer. */
  private readonly waiting = new Map<string, { holder: string; answer: (outcome: Outcome) => void }>();

  constructor(
    private readonly store: SharedStore,
    /** Runs a call passed to this replica, as its route would run it. */
    private readonly run: (call: PassedCall) => Promise<Outcome>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.store.hearTasks((message, sender) => this.heard(message, sender));
  }

  /**
   * The live replica of this store a tools/call's request state belongs to; undefined: this one's,
   * none, or one no live replica of this store names (an upstream's own state, passed through as
   * ever, or a dead replica's, which the call's own path refuses as expired).
   */
  async holderOf(body: unknown): Promise<string | undefined> {
    const rpc = body as { method?: unknown; params?: { requestState?: unknown } } | undefined;
    const state = rpc?.method === 'tools/call' ? rpc.params?.requestState : undefined;
    if (typeof state !== 'string') return undefined;
    const holder = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\./.exec(state)?.[1];
    if (holder === undefined || holder === this.store.holder) return undefined;
    return (await this.store.holderAlive(holder)) ? holder : undefined;
  }

  /** Passes the call to its replica and waits for the answer while that replica lives. */
  async pass(holder: string, call: Omit<PassedCall, 'kind' | 'id' | 'holder' | 'from'>): Promise<Outcome> {
    const id = randomUUID();
    const answered = new Promise<Outcome>((resolve) => this.waiting.set(id, { holder, answer: resolve }));
    try {
      await this.store.tellTask({ kind: 'call', id, holder, from: this.store.holder, ...call });
      for (;;) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const outcome = await Promise.race([
          answered,
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), HOLDER_CHECK_MS);
          }),
        ]);
        clearTimeout(timer);
        if (outcome) return outcome;
        if (!(await this.store.holderAlive(holder))) return gone();
      }
    } finally {
      this.waiting.delete(id);
    }
  }

  private heard(message: StoreMessage, sender: string): void {
    if (message.kind === 'reply' && message.to === this.store.holder) {
      const waiting = this.waiting.get(message.id);
      if (waiting?.holder === sender) waiting.answer(message.outcome);
      return;
    }
    if (message.kind !== 'call' || message.holder !== this.store.holder) return;
    this.logger.debug(`serve.store: a call passed from another replica (${message.path})`);
    void this.run(message)
      .then((outcome) => this.store.tellTask({ kind: 'reply', id: message.id, to: message.from, outcome }))
      .catch((error: Error) => this.logger.warn(`serve.store: a call passed from another replica was not answered: ${error.message}`));
  }
}

function gone(): Outcome {
  return {
    error: {
      code: -32602,
      message: 'Invalid or expired requestState: the replica that asked this question stopped, and the call with it (retry the call from the start).',
    },
  };
}
