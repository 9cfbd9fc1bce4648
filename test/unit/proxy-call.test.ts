import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { BegunCall } from '../../src/mcp/pipeline/call-chain.js';
import { proxyCallOf } from '../../src/mcp/pipeline/proxy-call.js';
import type { RequestContext } from '../../src/mcp/pipeline/request-context.js';
import { SessionState, type Surface, type ToolContext } from '../../src/tool/context.js';
import { defineTool } from '../../src/tool/define.js';
import type { ToolAccess } from '../../src/tool/tool-access.js';
import { Revocation } from '../../src/mcp/pipeline/revocation.js';

/**
 * What the proxy gets of a call (mcp/pipeline/proxy-call.ts), and what mcpkit's own tools the call
 * reaches still get of it: the tools' context of the client, with the call's own parts.
 */

/** A writer of mcpkit's own that tells what its context holds. */
const seer = defineTool({
  name: 'context_seen',
  group: 'config',
  command: { id: 'context seen', examples: ['x'] },
  title: 't',
  description: 'Tells what its context holds.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  enforcesReadOnly: true,
  run: async (_input, ctx) => ({
    readOnly: ctx.policy.readOnly,
    requestId: ctx.requestId ?? null,
    client: ctx.access?.client ?? null,
    aborted: ctx.signal?.aborted ?? null,
    asks: typeof ctx.askPerson === 'function',
    tenants: ctx.session.tenants.get('r') ?? null,
  }),
});

function toolsContext(surface: Surface, readOnly: boolean): ToolContext {
  const session = new SessionState();
  session.tenants.set('r', 'acme');
  return { surface, policy: { readOnly }, session } as unknown as ToolContext;
}

const request = (signal = new AbortController().signal) => ({ id: 7, signal, notify: async () => {} }) as RequestContext;
const begun = (parts: Partial<BegunCall> = {}) => ({ access: undefined, progressSent: async () => {}, end: () => {}, ...parts }) as BegunCall;
const asker = async () => 'approved' as const;

describe('proxyCallOf', () => {
  it.each([
    ['cli', 'owner'],
    ['mcp', 'listed'],
  ] as const)('a %s runtime looks names up as far as %s', (surface, reach) => {
    expect(proxyCallOf(toolsContext(surface, false), request(), begun(), asker).reach).toBe(reach);
  });

  it.each([
    ['a read-only run of a writable process', false, true, true],
    ['an ordinary run', false, false, false],
    ['any run of a read-only process', true, false, true],
    ['a read-only run of a read-only process', true, true, true],
  ])('runs an own tool under the read-only policy for %s', async (_what, processReadOnly, asked, seen) => {
    const call = proxyCallOf(toolsContext('mcp', processReadOnly), request(), begun(), asker);
    const result = await call.callLocal(seer, {}, { readOnly: asked });
    expect(result.structuredContent).toMatchObject({ readOnly: seen });
  });

  it("gives the proxy the call's parts, and an own tool the client's context with them", async () => {
    const access: ToolAccess = { client: 'ci' };
    const trace = { child: () => ({ traceparent: 'x', end: () => {} }) };
    const modern = { meta: { k: 1 } };
    const progress = () => {};
    const call = proxyCallOf(toolsContext('mcp', false), { ...request(), modern }, begun({ access, trace, progress }), asker);
    expect(call).toMatchObject({ related: 7, access, trace, modern, progress });
    const result = await call.callLocal(seer, {}, { readOnly: false });
    expect(result.structuredContent).toEqual({ readOnly: false, requestId: 7, client: 'ci', aborted: false, asks: true, tenants: 'acme' });
  });

  it('stops the call when the client cancels it or its credential is revoked', () => {
    const cancel = new AbortController();
    const revocation = new Revocation();
    const call = proxyCallOf(toolsContext('mcp', false), request(cancel.signal), begun({ revocation }), asker);
    expect(call.signal?.aborted).toBe(false);
    revocation.revoke(new Error('revoked'));
    expect(call.signal?.aborted).toBe(true);
    const cancelled = proxyCallOf(toolsContext('mcp', false), request(cancel.signal), begun(), asker);
    cancel.abort();
    expect(cancelled.signal?.aborted).toBe(true);
  });
});
