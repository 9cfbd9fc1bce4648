import { describe, expect, it } from 'vitest';
import type { ProxyHub } from '../../src/proxy/hub.js';
import { planCall } from '../../src/mcp/pipeline/call-plan.js';
import type { FastCall } from '../../src/proxy/calls/call-router.js';

const FAST = { entry: {}, run: () => () => {} } as unknown as FastCall;
/** A hub whose hot path takes every call it is asked about; `relays`: it relays what servers ask to its client. */
const hub = (relays = false) => ({ relaysRequests: relays, calls: { fastCall: () => FAST } as unknown as ProxyHub['calls'] });

describe('planCall: whether the hot path takes a call', () => {
  it.each([
    ['no hub yet (the first request makes it)', undefined, {}, {}, false],
    ['a 2025 request on a known hub', hub(), {}, {}, true],
    ['a 2026-07-28 request (its envelope goes through the SDK client)', hub(), {}, { envelope: {} }, false],
    ['one JSON body, nothing to stream', hub(), {}, { oneBody: true }, true],
    ['one JSON body, but the client asked for progress', hub(), { progressToken: 1 }, { oneBody: true }, false],
    ['one JSON body, but servers may ask the client things', hub(true), {}, { oneBody: true }, false],
    ['a streaming carrier takes progress on the hot path', hub(), { progressToken: 1 }, {}, true],
  ])('%s', (_label, h, meta, ctx, fast) => {
    const plan = planCall(h, { name: 't', _meta: meta }, { client: 'c' }, ctx);
    expect(plan.fast !== undefined).toBe(fast);
    expect(plan.access).toEqual({ client: 'c' });
  });
});
