import type { AuditedCall } from '../audit/auditor.js';
import { answererOf, type CatalogEntry } from '../proxy/catalog/catalog.js';
import type { ToolAccess } from '../tool/context.js';

/** Who a stdio client is in the audit log: the person who started serve. */
export const STDIO_IDENTITY = 'stdio';

/** What answered a request: a catalog entry (through a meta-tool: `via`), or a listing meta-tool itself. */
export interface Answered {
  entry?: CatalogEntry | undefined;
  via?: string | undefined;
  meta?: boolean | undefined;
}

/**
 * What is known of one finished request. The call's chain (call-chain.ts), which both downstream
 * paths go through, hands these facts over, and `auditedCall` alone makes the record the audit log
 * and the metrics see.
 */
export interface CallFacts {
  method: AuditedCall['method'];
  /** The name the client asked for (a tool, a prompt, a resource's URI). */
  name: string;
  session: string | undefined;
  request: string | number | undefined;
  /** Who called; absent on a connection nobody let in by name (stdio). */
  access: ToolAccess | undefined;
  client: { name?: unknown; version?: unknown } | undefined;
  view: string | undefined;
  answered: Answered | undefined;
  /** A code run's call: the run's request id, and the run tool it went through. */
  parent?: { request: string | number; via: string } | undefined;
  started: number;
  args: unknown;
  ended: { result: unknown; resultBytes?: number | undefined } | { error: unknown };
}

/** The audit log's record of a request. Pure. */
export function auditedCall(facts: CallFacts): AuditedCall {
  const { entry, meta } = facts.answered ?? {};
  const via = facts.answered?.via ?? facts.parent?.via;
  const { ended } = facts;
  return {
    method: facts.method,
    // A call through a meta-tool is recorded under the tool it ran.
    name: via !== undefined && entry ? entry.name : facts.name,
    session: facts.session,
    request: facts.request,
    identity: facts.access?.client ?? STDIO_IDENTITY,
    named: facts.access?.named,
    ...(via !== undefined ? { via } : {}),
    ...(facts.parent ? { parent: facts.parent.request } : {}),
    client: facts.client,
    view: facts.view,
    ...(entry ? answererOf(entry) : meta ? { server: 'mcpkit', upstreamName: facts.name } : {}),
    started: facts.started,
    args: facts.args,
    ...('error' in ended
      ? { error: ended.error as { code?: unknown } }
      : { result: ended.result, ...(ended.resultBytes !== undefined ? { resultBytes: ended.resultBytes } : {}) }),
  };
}
