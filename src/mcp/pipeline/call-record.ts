import type { AuditedCall } from '../../audit/auditor.js';
import { answererOf, type CatalogEntry } from '../../proxy/catalog/catalog.js';
import type { CallOutcome, FastCall } from '../../proxy/calls/call-router.js';
import type { HubCatalog } from '../../proxy/hub.js';
import type { ToolAccess } from '../../tool/context.js';

/** Who a stdio client is in the audit log: the person who started serve. */
export const STDIO_IDENTITY = 'stdio';

/** What answered a request: a catalog entry (through a meta-tool: `via`), or a listing meta-tool itself. */
export interface Answered {
  entry?: CatalogEntry | undefined;
  via?: string | undefined;
  meta?: boolean | undefined;
  /** A tool its pins withhold (it has no entry): the server it is of, and the server's name for it. */
  held?: { server: string; tool: string } | undefined;
  /** The gateway refused the call before it ran (its rules, its limits): recorded as `refused`, whatever the client was answered. */
  refused?: boolean | undefined;
}

/**
 * What a call the client's limits refused was for: the entry the hot path found, else the one its
 * view's catalog has under that name (a name no tool has stays unknown, so labels stay bounded).
 * Asked after the refusal is sent: the refused client never waits on it.
 */
export async function refusalAnswered(catalog: Promise<HubCatalog>, fast: FastCall | undefined, name: unknown): Promise<Answered> {
  let entry = fast?.entry;
  if (!entry && typeof name === 'string') {
    const found = await catalog.catch(() => undefined);
    entry = (await found?.lookup(name).catch(() => undefined))?.entry;
  }
  return { ...(entry ? { entry } : {}), refused: true };
}

/**
 * What answered a routed call: its entry (through a meta-tool: `via`), a meta-tool itself, the
 * server of a tool its pins withhold; and for a name the client's rules do not allow, which it is
 * answered as an unknown tool, the entry it would have reached, marked refused.
 */
export async function answeredOf(catalog: HubCatalog, name: string, outcome: CallOutcome): Promise<Answered | undefined> {
  if (!outcome.found) {
    const entry = (await catalog.lookup(name).catch(() => undefined))?.entry;
    return entry ? { entry, refused: true } : undefined;
  }
  const held = outcome.entry || outcome.meta ? undefined : catalog.withheldTool(name);
  return {
    ...(outcome.entry ? { entry: outcome.entry } : {}),
    ...(outcome.via ? { via: outcome.via } : {}),
    ...(outcome.meta ? { meta: true } : {}),
    ...(held ? { held: { server: held.server, tool: held.tool } } : {}),
  };
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
  const { entry, meta, held } = facts.answered ?? {};
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
    ...(entry ? answererOf(entry) : held ? { server: held.server, upstreamName: held.tool } : meta ? { server: 'mcpkit', upstreamName: facts.name } : {}),
    ...(facts.answered?.refused ? { refused: true } : {}),
    started: facts.started,
    args: facts.args,
    ...('error' in ended
      ? { error: ended.error as { code?: unknown } }
      : { result: ended.result, ...(ended.resultBytes !== undefined ? { resultBytes: ended.resultBytes } : {}) }),
  };
}
