import { randomBytes } from 'node:crypto';

/** What a 2025 server asks its client during a call: sampling, elicitation or roots. */
export type InputMethod = 'sampling/createMessage' | 'elicitation/create' | 'roots/list';

/** The 2026-07-28 answer that asks the client for input (MRTR): the client retries with its responses and the state. */
export interface InputRequiredAnswer {
  resultType: 'input_required';
  inputRequests: Record<string, { method: InputMethod; params: unknown }>;
  requestState: string;
}

/** Why a bridged round cannot go on: the client's retry names no call parked here. */
export class UnknownRequestState extends Error {
  readonly code = -32602;
  constructor() {
    super('Invalid or expired requestState: no call of this server is waiting for that input (retry the call from the start).');
  }
}

interface Ask {
  method: InputMethod;
  params: unknown;
  answer(result: Record<string, unknown>): void;
  refuse(error: Error): void;
}

/**
 * How the client's side cancels a bridged call: the signal of its request that waits on a leg
 * (the client dropped it, or sent notifications/cancelled). `lasting`: the signal is the whole
 * call's (a task's, which tasks/cancel aborts), so it also stops a call parked between legs; an
 * ordinary request's ends with its answer, and a parked call is then the client's retry's to go on.
 */
export interface LegCancel {
  signal?: AbortSignal | undefined;
  lasting?: boolean | undefined;
}

/** One call of a 2026 client to a 2025 server, from its first leg to its result. */
class BridgedCall<R> {
  private readonly asks: Ask[] = [];
  private wake?: () => void;
  private unfollow?: () => void;
  constructor(
    readonly outcome: Promise<R>,
    /** The client declared this capability (its envelope): what it did not declare is refused to the server. */
    readonly accepts: (method: InputMethod) => boolean,
    /** Aborts the server's request (the SDK then tells the server: notifications/cancelled). */
    private readonly stopper: AbortController,
  ) {}

  get stopped(): AbortSignal {
    return this.stopper.signal;
  }

  /** The client's request now waiting on the call: its cancel stops the call upstream. */
  follow(cancel: LegCancel | undefined): void {
    this.unfollow?.();
    this.unfollow = undefined;
    const signal = cancel?.signal;
    if (!signal) return;
    const stop = () => this.stopper.abort(signal.reason ?? new Error('cancelled by the client'));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    this.unfollow = () => signal.removeEventListener('abort', stop);
  }

  /** No request waits on the call any more (it ended, or parked for a request whose signal ends with its answer). */
  unfollowed(): void {
    this.unfollow?.();
    this.unfollow = undefined;
  }

  push(ask: Ask): void {
    this.asks.push(ask);
    this.wake?.();
  }

  /** The call's result, or the next thing its server asks, whichever comes first. */
  async next(): Promise<{ done: R } | { ask: Ask }> {
    const waiting = this.asks.shift();
    if (waiting) return { ask: waiting };
    const asked = new Promise<{ ask: Ask }>((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve({ ask: this.asks.shift()! });
      };
    });
    return Promise.race([this.outcome.then((done) => ({ done })), asked]);
  }
}

interface Parked<R> {
  call: BridgedCall<R>;
  ask: Ask;
  key: string;
  timer: NodeJS.Timeout;
  /** Stops listening for the call's stop. */
  off(): void;
}

/**
 * The bridge for 2026-07-28 clients calling a 2025 server (MRTR over server-to-client requests).
 * The server's sampling, elicitation and roots requests during a call become an input_required
 * answer to that call; the client's retry brings the response, which goes back to the server as
 * its request's result, and the call goes on to its result or to the next question. The call is
 * parked in this process between legs (under an unguessable request state), so a bridged call
 * needs the same replica for its retries: the one place where a 2026 client's requests are not
 * stateless, because the 2025 server's call is a live request. A call the client never retries is
 * given up after `parkMs`: the server's question is refused and its result dropped.
 */
export class InputBridge<R> {
  private readonly inFlight: BridgedCall<R>[] = [];
  private readonly parked = new Map<string, Parked<R>>();
  private seq = 0;

  constructor(
    private readonly parkMs: number,
    /**
     * Put in front of every request state (and a dot): which process parked the call, so that a
     * replica sharing serve.store can pass a retry that reached it to this one (mcp/tasks/remote-calls.ts).
     */
    private readonly tag?: () => string | undefined,
  ) {}

  /** Whether a call is waiting for a client's input under this state. */
  holds(state: string): boolean {
    return this.parked.has(state);
  }

  /**
   * The server asked its client something. A 2025 server's request names no call it belongs to,
   * so it goes to the one bridged call in flight whose client declared what it needs, and to
   * nobody when that is not one call: with two candidates, guessing could put one client's
   * question (and its answer) in front of another client. The server's request is then refused,
   * saying why, and its call fails as the server decides.
   */
  ask(method: InputMethod, params: unknown): Promise<Record<string, unknown>> {
    if (this.inFlight.length === 0) return Promise.reject(new Error(`mcpkit has no client to ask: ${method} arrived outside a call of a 2026-07-28 client.`));
    const candidates = this.inFlight.filter((call) => call.accepts(method));
    if (candidates.length === 0) return Promise.reject(new Error(`the client of this call did not declare the capability ${method} needs.`));
    if (candidates.length > 1) {
      return Promise.reject(
        new Error(
          `mcpkit cannot tell which of the ${candidates.length} calls in flight on this connection asked (a 2025-11-25 server's ${method} names no call), so it asks no client rather than perhaps the wrong one. Retry the call when the others are done.`,
        ),
      );
    }
    const call = candidates[0]!;
    return new Promise((answer, refuse) => call.push({ method, params, answer, refuse }));
  }

  /**
   * The first leg of a call: its result, or what its server asks first. `begin` sends the server's
   * request with the signal that stops it: the client's cancel (`cancel`) aborts it, whichever leg
   * the client is on, and the SDK tells the server.
   */
  start(
    begin: Promise<R> | ((stop: AbortSignal) => Promise<R>),
    accepts: (method: InputMethod) => boolean,
    cancel?: LegCancel,
  ): Promise<R | InputRequiredAnswer> {
    const stopper = new AbortController();
    const outcome = typeof begin === 'function' ? begin(stopper.signal) : begin;
    const call = new BridgedCall(outcome, accepts, stopper);
    this.inFlight.push(call);
    const done = () => {
      call.unfollowed();
      const at = this.inFlight.indexOf(call);
      if (at >= 0) this.inFlight.splice(at, 1);
    };
    outcome.then(done, done);
    return this.leg(call, cancel);
  }

  /** A retry: the client's response to what was asked, then the call's result or its next question. */
  resume(state: string, responses: unknown, cancel?: LegCancel): Promise<R | InputRequiredAnswer> {
    const parked = this.parked.get(state);
    if (!parked) return Promise.reject(new UnknownRequestState());
    this.unpark(state, parked);
    const response = (responses as Record<string, unknown> | undefined)?.[parked.key];
    // No answer to the question: ask it again (the spec lets a server re-issue an unanswered request).
    if (response === undefined || response === null || typeof response !== 'object') return Promise.resolve(this.park(parked.call, parked.ask, cancel));
    parked.ask.answer(response as Record<string, unknown>);
    return this.leg(parked.call, cancel);
  }

  /** Refuses every question still waiting (closing). */
  close(): void {
    for (const parked of this.parked.values()) {
      clearTimeout(parked.timer);
      parked.off();
      parked.ask.refuse(new Error('mcpkit is shutting down'));
    }
    this.parked.clear();
  }

  private async leg(call: BridgedCall<R>, cancel: LegCancel | undefined): Promise<R | InputRequiredAnswer> {
    call.follow(cancel);
    const next = await call.next();
    return 'done' in next ? next.done : this.park(call, next.ask, cancel);
  }

  private park(call: BridgedCall<R>, ask: Ask, cancel: LegCancel | undefined): InputRequiredAnswer {
    // A task's signal goes on stopping it while it waits (a question asked again included); a request's ends with its answer.
    if (cancel?.lasting) call.follow(cancel);
    else call.unfollowed();
    const tag = this.tag?.();
    const state = `${tag ? `${tag}.` : ''}${randomBytes(18).toString('base64url')}`;
    const key = `mcpkit_${++this.seq}`;
    const timer = setTimeout(() => {
      this.unpark(state, parked);
      ask.refuse(new Error('the client did not answer in time'));
    }, this.parkMs);
    timer.unref();
    // A call stopped while parked (its task cancelled) waits for no answer.
    const stopped = () => {
      if (this.parked.get(state) !== parked) return;
      this.unpark(state, parked);
      ask.refuse(new Error('the call was cancelled'));
    };
    const parked: Parked<R> = { call, ask, key, timer, off: () => call.stopped.removeEventListener('abort', stopped) };
    call.stopped.addEventListener('abort', stopped, { once: true });
    this.parked.set(state, parked);
    return { resultType: 'input_required', inputRequests: { [key]: { method: ask.method, params: ask.params } }, requestState: state };
  }

  private unpark(state: string, parked: Parked<R>): void {
    this.parked.delete(state);
    clearTimeout(parked.timer);
    parked.off();
  }
}
