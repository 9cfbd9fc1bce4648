import { afterEach, describe, expect, it } from 'vitest';
import { InputBridge, UnknownRequestState, type InputRequiredAnswer } from '../../../src/proxy/eras/input-bridge.js';

const all = () => true;

/**
 * Every bridge a test makes is closed after it: a question left parked would otherwise be refused
 * by its timer long after, in whichever file then runs in this shared worker, as an unhandled
 * rejection (seen in a full run, where a worker outlives the 60 s).
 */
const made: InputBridge<string>[] = [];
afterEach(() => {
  for (const bridge of made.splice(0)) bridge.close();
});
function bridgeOf(parkMs: number): InputBridge<string> {
  const bridge = new InputBridge<string>(parkMs);
  made.push(bridge);
  return bridge;
}
/** A question the test leaves unanswered on purpose: its refusal at close is expected. */
const unanswered = (asked: Promise<unknown>) => void asked.catch(() => undefined);

/** A call whose result the test decides, after its server asked what the test scripts. */
function scriptedCall() {
  let finish!: (value: string) => void;
  const outcome = new Promise<string>((resolve) => (finish = resolve));
  return { outcome, finish };
}

describe('InputBridge: a 2025 server asking a 2026 client, one call at a time', () => {
  it('a call that asks nothing answers with its result', async () => {
    const bridge = bridgeOf(60_000);
    expect(await bridge.start(Promise.resolve('done'), all)).toBe('done');
  });

  it('a question becomes input_required; the retry answers it and gets the result', async () => {
    const bridge = bridgeOf(60_000);
    const call = scriptedCall();
    const first = bridge.start(call.outcome, all);
    const answered = bridge.ask('elicitation/create', { message: 'Name?' });
    const leg = (await first) as InputRequiredAnswer;
    expect(leg.resultType).toBe('input_required');
    const [key, request] = Object.entries(leg.inputRequests)[0]!;
    expect(request).toEqual({ method: 'elicitation/create', params: { message: 'Name?' } });
    const second = bridge.resume(leg.requestState, { [key]: { action: 'accept', content: { name: 'Ada' } } });
    expect(await answered).toEqual({ action: 'accept', content: { name: 'Ada' } });
    call.finish('Hello, Ada');
    expect(await second).toBe('Hello, Ada');
    // A state is good for one retry only.
    expect(bridge.holds(leg.requestState)).toBe(false);
  });

  it('a second question in the same call is a second round', async () => {
    const bridge = bridgeOf(60_000);
    const call = scriptedCall();
    const first = bridge.start(call.outcome, all);
    unanswered(bridge.ask('elicitation/create', { step: 1 }));
    const round1 = (await first) as InputRequiredAnswer;
    const key1 = Object.keys(round1.inputRequests)[0]!;
    const second = bridge.resume(round1.requestState, { [key1]: { action: 'accept' } });
    unanswered(bridge.ask('sampling/createMessage', { step: 2 }));
    const round2 = (await second) as InputRequiredAnswer;
    expect(Object.values(round2.inputRequests)[0]).toEqual({ method: 'sampling/createMessage', params: { step: 2 } });
    expect(round2.requestState).not.toBe(round1.requestState);
  });

  it('a retry without the answer is asked again', async () => {
    const bridge = bridgeOf(60_000);
    const first = bridge.start(scriptedCall().outcome, all);
    unanswered(bridge.ask('elicitation/create', { message: 'Name?' }));
    const leg = (await first) as InputRequiredAnswer;
    const again = (await bridge.resume(leg.requestState, {})) as InputRequiredAnswer;
    expect(Object.values(again.inputRequests)[0]).toEqual({ method: 'elicitation/create', params: { message: 'Name?' } });
  });

  it.each([
    ['a state it never issued', 'forged'],
    ['an empty state', ''],
  ])('refuses %s', async (_what, state) => {
    const bridge = bridgeOf(60_000);
    await expect(bridge.resume(state, {})).rejects.toBeInstanceOf(UnknownRequestState);
  });

  it("refuses the server's question when the call's client lacks the capability, or no call is in flight", async () => {
    const bridge = bridgeOf(60_000);
    await expect(bridge.ask('elicitation/create', {})).rejects.toThrow(/outside a call/);
    void bridge.start(scriptedCall().outcome, (method) => method === 'sampling/createMessage');
    await expect(bridge.ask('elicitation/create', {})).rejects.toThrow(/did not declare/);
  });

  it('with two calls in flight whose clients could be asked, a question goes to neither (it names no call)', async () => {
    const bridge = bridgeOf(60_000);
    const a = bridge.start(scriptedCall().outcome, all);
    const b = bridge.start(scriptedCall().outcome, all);
    await expect(bridge.ask('elicitation/create', { message: 'question of B' })).rejects.toThrow(/cannot tell which of the 2 calls/);
    // Neither call was handed the question: each is still waiting for its own result.
    const pending = Symbol('pending');
    expect(await Promise.race([a, b, new Promise((r) => setTimeout(() => r(pending), 20))])).toBe(pending);
  });

  it('the one call whose client declared the capability is asked, whatever calls of other clients are in flight', async () => {
    const bridge = bridgeOf(60_000);
    void bridge.start(scriptedCall().outcome, () => false); // a client that cannot be asked, first in line
    const asker = bridge.start(scriptedCall().outcome, all);
    unanswered(bridge.ask('elicitation/create', { message: 'Name?' }));
    expect(((await asker) as InputRequiredAnswer).resultType).toBe('input_required');
  });

  it('a call whose client never retries is given up: the question is refused', async () => {
    const bridge = bridgeOf(30);
    const first = bridge.start(scriptedCall().outcome, all);
    const answered = bridge.ask('elicitation/create', {});
    const leg = (await first) as InputRequiredAnswer;
    await expect(answered).rejects.toThrow(/did not answer in time/);
    expect(bridge.holds(leg.requestState)).toBe(false);
  });
});

describe("InputBridge: the client's cancel stops the server's call (it is told, by the signal its request was sent with)", () => {
  /** A call whose server request ends when its stop signal aborts, as the SDK's request does (it sends notifications/cancelled). */
  function stoppableCall() {
    let stop: AbortSignal | undefined;
    let finish!: (value: string) => void;
    const begin = (signal: AbortSignal) => {
      stop = signal;
      return new Promise<string>((resolve, reject) => {
        finish = resolve;
        signal.addEventListener('abort', () => reject(new Error('cancelled upstream')), { once: true });
      });
    };
    return { begin, stopped: () => stop?.aborted === true, finish: (value: string) => finish(value) };
  }

  it.each([
    { when: 'on its first leg', lasting: false },
    { when: 'on its first leg, as a task', lasting: true },
  ])('cancelled $when: stopped at once', async ({ lasting }) => {
    const bridge = bridgeOf(60_000);
    const call = stoppableCall();
    const client = new AbortController();
    const first = bridge.start(call.begin, all, { signal: client.signal, lasting });
    client.abort();
    await expect(first).rejects.toThrow('cancelled upstream');
    expect(call.stopped()).toBe(true);
  });

  it.each([
    { lasting: true, stopped: true, why: "a task's signal lasts the whole call: tasks/cancel stops it while it waits for the answers" },
    { lasting: false, stopped: false, why: "a request's signal ends with its answer: the parked call is its client's retry's to go on" },
  ])('parked between legs, lasting $lasting: $why', async ({ lasting, stopped }) => {
    const bridge = bridgeOf(60_000);
    const call = stoppableCall();
    const client = new AbortController();
    const first = bridge.start(call.begin, all, { signal: client.signal, lasting });
    const asked = bridge.ask('elicitation/create', { message: 'Sure?' });
    const leg = (await first) as InputRequiredAnswer;
    expect(leg.resultType).toBe('input_required');
    client.abort();
    expect(call.stopped()).toBe(stopped);
    expect(bridge.holds(leg.requestState)).toBe(!stopped);
    if (stopped) await expect(asked).rejects.toThrow(/cancelled/);
    else {
      // The retry goes on, and its own request's cancel stops the call.
      const retry = new AbortController();
      const second = bridge.resume(leg.requestState, { [Object.keys(leg.inputRequests)[0]!]: { action: 'accept' } }, { signal: retry.signal });
      expect(await asked).toEqual({ action: 'accept' });
      retry.abort();
      await expect(second).rejects.toThrow('cancelled upstream');
      expect(call.stopped()).toBe(true);
    }
  });
});
