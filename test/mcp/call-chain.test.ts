import { describe, expect, it } from 'vitest';
import type { AuditedCall } from '../../src/audit/auditor.js';
import { Limiter, parseRate } from '../../src/core/limits.js';
import { beginCall, REVOKED, throughChain, type CallLinks, type CallStart } from '../../src/mcp/pipeline/call-chain.js';
import { CallsInFlight, scopeOf } from '../../src/mcp/pipeline/calls-in-flight.js';
import type { ToolAccess } from '../../src/tool/context.js';

/** A tracing stand-in that notes what the chain asks of it (the OpenTelemetry side has its own tests). */
function spans() {
  const log: string[] = [];
  return {
    log,
    tracing: {
      begin: (method: string, name: string, meta: Record<string, unknown> | undefined, attributes: Record<string, string | undefined>) => {
        log.push(`begin ${method} ${name} parent=${String(meta?.traceparent)} client=${attributes['mcpkit.client']}`);
        return {
          upstream: (m: string, n: string, server: string) => {
            log.push(`upstream ${m} ${n} ${server}`);
            return { traceparent: '00-child', end: () => log.push('upstream end') };
          },
          end: (outcome: { result: unknown } | { error: unknown }) => log.push(`end ${'error' in outcome ? 'error' : 'result'}`),
        };
      },
    } as unknown as NonNullable<CallLinks['tracing']>,
  };
}

const start = (over: Partial<CallStart> = {}): CallStart => ({
  method: 'tools/call',
  name: 'echo',
  args: { message: 'hi' },
  request: 7,
  session: 's1',
  client: () => ({ name: 'test-client', version: '1' }),
  view: () => 'v',
  ...over,
});

const limited = (rate: string, maxConcurrent?: number): ToolAccess => {
  const limiter = new Limiter({ rate: parseRate(rate), ...(maxConcurrent ? { maxConcurrent } : {}) }, () => 0);
  return { client: 'dave', named: true, admit: () => limiter.admit() };
};

describe('the call chain', () => {
  it('reads who calls once, records the call once with that identity, and traces it under the client context', () => {
    const records: AuditedCall[] = [];
    const { log, tracing } = spans();
    let reads = 0;
    const links: CallLinks = {
      access: () => (reads++, { client: 'alice', named: true }),
      observer: { record: (call) => records.push(call) },
      tracing,
    };
    const begun = beginCall(links, start({ traceContext: { traceparent: '00-parent' } }));
    expect(begun.refused).toBeUndefined();
    expect(begun.access?.client).toBe('alice');
    begun.trace!.child('tools/call', 'echo', 'upstream-a').end();
    begun.end({ result: { content: [] } });
    begun.end({ result: { content: [] } }); // a second end (a cancelled call answered late) is ignored
    expect(reads).toBe(1);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ method: 'tools/call', name: 'echo', identity: 'alice', named: true, session: 's1', request: 7, view: 'v' });
    expect(log).toEqual(['begin tools/call echo parent=00-parent client=alice', 'upstream tools/call echo upstream-a', 'upstream end', 'end result']);
  });

  it('takes the identity a path already read, and does not read it again', () => {
    let reads = 0;
    const links: CallLinks = { access: () => (reads++, { client: 'later' }) };
    expect(beginCall(links, start({ access: { client: 'decided' } })).access?.client).toBe('decided');
    expect(beginCall(links, start({ access: undefined })).access).toBeUndefined();
    expect(reads).toBe(0);
  });

  it.each([
    { case: 'over its rate', access: () => limited('1/min'), calls: 2, refused: [false, true] },
    { case: 'over max_concurrent', access: () => limited('100/s', 1), calls: 2, refused: [false, true] },
  ])('refuses a tools/call $case with RATE_LIMITED, unrun, and still audits and traces it', ({ access, calls, refused }) => {
    const records: AuditedCall[] = [];
    const { log, tracing } = spans();
    const who = access();
    const links: CallLinks = { access: () => who, observer: { record: (call) => records.push(call) }, tracing };
    const begun = Array.from({ length: calls }, () => beginCall(links, start()));
    expect(begun.map((b) => b.refused !== undefined)).toEqual(refused);
    const refusal = begun.find((b) => b.refused)!;
    expect(JSON.stringify(refusal.refused)).toContain('RATE_LIMITED');
    refusal.end({ result: refusal.refused });
    expect(records).toHaveLength(1);
    expect(log.filter((l) => l.startsWith('end'))).toEqual(['end result']);
  });

  it('releases the place of a call when it ends, so the next one runs', () => {
    const who = limited('100/s', 1);
    const links: CallLinks = { access: () => who };
    const first = beginCall(links, start());
    expect(beginCall(links, start()).refused).toBeDefined();
    first.end({ result: {} });
    expect(beginCall(links, start()).refused).toBeUndefined();
  });

  it('does not limit reads of prompts and resources, nor trace them; it audits them', () => {
    const records: AuditedCall[] = [];
    const { log, tracing } = spans();
    const who = limited('1/min');
    const links: CallLinks = { access: () => who, observer: { record: (call) => records.push(call) }, tracing };
    for (const method of ['prompts/get', 'resources/read', 'prompts/get'] as const) {
      const begun = beginCall(links, start({ method, name: 'x' }));
      expect(begun.refused).toBeUndefined();
      begun.end({ result: {} });
    }
    expect(records.map((r) => r.method)).toEqual(['prompts/get', 'resources/read', 'prompts/get']);
    expect(log).toEqual([]);
  });

  it('sends progress under the client token, and the result waits for every notification sent before it', async () => {
    const sent: unknown[] = [];
    const pending: (() => void)[] = [];
    const notify = (notification: unknown) =>
      new Promise<void>((resolve) =>
        pending.push(() => {
          sent.push(notification);
          resolve();
        }),
      );
    const result = throughChain({}, start({ progressToken: 'tok', notify }), async ({ progress, progressSent }) => {
      progress!({ progress: 1, total: 2 });
      progress!({ progress: 2, total: 2 });
      const flushed = progressSent();
      setTimeout(() => pending.splice(0).forEach((send) => send()), 10);
      await flushed;
      return { content: [], sentBefore: sent.length };
    });
    expect(await result).toMatchObject({ sentBefore: 2 });
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progress: 1, total: 2, progressToken: 'tok' } },
      { method: 'notifications/progress', params: { progress: 2, total: 2, progressToken: 'tok' } },
    ]);
  });

  it('gives no progress sink without a token, or where the path relays progress itself', () => {
    expect(beginCall({}, start({ notify: async () => {} })).progress).toBeUndefined();
    expect(beginCall({}, start({ progressToken: 1 })).progress).toBeUndefined();
  });

  it('throughChain records a thrown error as the outcome, and answers a refusal without running', async () => {
    const records: AuditedCall[] = [];
    const observer = { record: (call: AuditedCall) => records.push(call) };
    await expect(
      throughChain({ observer }, start(), async () => {
        throw Object.assign(new Error('bad'), { code: -32602 });
      }),
    ).rejects.toThrow('bad');
    expect(records[0]?.error).toMatchObject({ code: -32602 });
    let ran = false;
    const who = limited('1/min');
    await throughChain({ access: () => who }, start(), async () => ({ content: [] }));
    const refused = await throughChain({ access: () => who, observer }, start(), async () => ((ran = true), { content: [] }));
    expect(ran).toBe(false);
    expect(JSON.stringify(refused)).toContain('RATE_LIMITED');
    expect(records).toHaveLength(2);
  });

  it('revokes a call cancelled as its credential is taken away, and settles the cancel once the call has ended', async () => {
    const calls = new CallsInFlight<string>();
    const begun = beginCall({ inFlight: scopeOf(calls, 'alice') }, start());
    const told: string[] = [];
    begun.revocation!.on(() => told.push('first'));
    const off = begun.revocation!.on(() => told.push('stopped listening'));
    off();
    let cancelled = false;
    const cancelling = calls.cancel(['alice']).then((n) => ((cancelled = true), n));
    expect(told).toEqual(['first']);
    expect(begun.revocation!.aborted).toBe(true);
    expect(begun.revocation!.signal.reason).toBe(REVOKED);
    await new Promise((r) => setImmediate(r));
    expect(cancelled).toBe(false); // the call has not ended yet
    begun.end({ result: { content: [] } });
    expect(await cancelling).toBe(1);
    expect(calls.count()).toBe(0);
  });

  it('makes no AbortController for a call nothing revokes: the hot path only listens', () => {
    const real = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends real {
      constructor() {
        super();
        made++;
      }
    };
    try {
      const calls = new CallsInFlight<string>();
      const begun = beginCall({ inFlight: scopeOf(calls, 'alice') }, start());
      const off = begun.revocation!.on(() => {});
      off();
      begun.end({ result: { content: [] } });
      expect(made).toBe(0);
      expect(calls.count()).toBe(0);
      // A path that passes the revocation on as a signal gets one, aborted when the call is revoked.
      const second = beginCall({ inFlight: scopeOf(calls, 'bob') }, start());
      const signal = second.revocation!.signal;
      expect(made).toBe(1);
      void calls.cancel(['bob']);
      expect(signal.aborted).toBe(true);
      second.end({ result: { content: [] } });
    } finally {
      globalThis.AbortController = real;
    }
  });
});
