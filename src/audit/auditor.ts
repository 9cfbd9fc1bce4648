import { redact } from '../core/redact.js';
import type { AuditEntry, AuditLog, AuditStatus } from './audit-log.js';
import { isoTime } from './audit-line.js';

/** What a front end knows of one finished request (tools/call, prompts/get, resources/read). */
export interface AuditedCall {
  method: AuditEntry['method'];
  /** A terminal's call (its front end marks it): the line says `surface: cli`. */
  surface?: 'cli' | undefined;
  session?: string | undefined;
  request?: string | number | undefined;
  client?: { name?: unknown; version?: unknown } | undefined;
  /** Who called (ToolAccess.client). */
  identity?: string | undefined;
  /** The identity is a configured client's name (then /metrics labels it; others count as "(anonymous)"). */
  named?: boolean | undefined;
  /** The meta-tool the call went through; `name`, `server` and `upstreamName` are then the tool it ran. */
  via?: string | undefined;
  /** A code run's call: the run's request id. */
  parent?: string | number | undefined;
  view?: string | undefined;
  name: string;
  /** The upstream server and its own name for it; "mcpkit" for mcpkit's own tools. */
  server?: string | undefined;
  upstreamName?: string | undefined;
  /** performance.now() when the request came in. */
  started: number;
  /** performance.now() and Date.now() when it was answered (CallQueue notes them); else when recorded. */
  finished?: number;
  endedAt?: number;
  /** The gateway refused it before it ran (its rules or limits): `refused`, whatever the client was answered. */
  refused?: boolean | undefined;
  /** A tool result, a prompt or resource result, or the JSON-RPC error that was sent. */
  result?: unknown;
  error?: { code?: unknown };
  /** The request's arguments (recorded only with audit_arguments). */
  args?: unknown;
  /** The size of the result's JSON, when the front end already knows it (it serialized the answer). */
  resultBytes?: number;
}

/** What sees every finished request: the audit log, the metrics (mcp front ends call it). */
export interface CallObserver {
  record(call: AuditedCall): void;
  /** A batch at once, when the observer does better with it (CallQueue prefers it). */
  recordAll?(calls: readonly AuditedCall[]): void;
}

/**
 * The error codes of a call that was refused rather than failed: a limit (a client's or a server's),
 * tool pinning, a policy or a person that said no. The call did not run.
 */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(['RATE_LIMITED', 'TOOL_NOT_APPROVED', 'FORBIDDEN']);

/** How a call ended, in the audit log's words (a result with isError is a tool error; one refused by the gateway, `refused`). */
export function outcomeOf(call: Pick<AuditedCall, 'result' | 'error' | 'refused'>): Pick<AuditEntry, 'outcome' | 'error_code'> {
  if (call.error) {
    const code = typeof call.error.code === 'number' || typeof call.error.code === 'string' ? call.error.code : null;
    return { outcome: call.refused ? 'refused' : 'protocol_error', error_code: code };
  }
  const result = call.result as { isError?: boolean; structuredContent?: { error?: { code?: unknown } } } | undefined;
  if (result?.isError) {
    const code = result.structuredContent?.error?.code;
    // A rule of the config at work, not a failure: counted apart (conditions on arguments, issue 69).
    if (code === 'CONDITION_FAILED') return { outcome: 'refused_by_condition', error_code: code };
    const refused = call.refused === true || (typeof code === 'string' && REFUSAL_CODES.has(code));
    return { outcome: refused ? 'refused' : 'tool_error', error_code: typeof code === 'string' ? code : null };
  }
  return { outcome: 'ok', error_code: null };
}

const bytes = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));

/**
 * Turns what the front ends know of a request into one audit line. Argument values are left
 * out unless `arguments` is set, and then every secret mcpkit knows (core/redact) is masked.
 */
export class Auditor implements CallObserver {
  constructor(
    private readonly log: AuditLog,
    private readonly options: { arguments: boolean; now?: () => number },
  ) {}

  record(call: AuditedCall): void {
    const finished = call.finished ?? performance.now();
    const info = call.client && typeof call.client.name === 'string' ? { name: call.client.name, version: String(call.client.version ?? '') } : null;
    const entry: AuditEntry = {
      time: isoTime(this.options.now?.() ?? call.endedAt ?? Date.now()),
      method: call.method,
      ...(call.surface !== undefined ? { surface: call.surface } : {}),
      session: call.session ?? null,
      request: call.request ?? null,
      client: call.identity ?? null,
      client_info: info,
      view: call.view ?? null,
      name: call.name,
      ...(call.via !== undefined ? { via: call.via } : {}),
      ...(call.parent !== undefined ? { parent: call.parent } : {}),
      server: call.server ?? null,
      upstream_name: call.upstreamName ?? null,
      duration_ms: Math.round((finished - call.started) * 100) / 100,
      ...outcomeOf(call),
      bytes_in: bytes(call.args),
      bytes_out: call.resultBytes ?? bytes(call.result ?? call.error),
    };
    if (this.options.arguments && call.args !== undefined) entry.arguments = JSON.parse(redact(JSON.stringify(call.args))) as unknown;
    this.log.write(entry);
  }

  /** How the log stands (writing, or failing since when), for /health and /metrics. */
  status(): AuditStatus {
    return this.log.status();
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
