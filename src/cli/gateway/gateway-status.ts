import type { ChalkInstance } from 'chalk';
import { ToolError } from '../../core/errors.js';
import { printable } from '../../core/printable.js';
import { shortDigest, type FleetReplica } from '../../mcp/http/health-view.js';

/**
 * `mcpkit gateway status URL`: the fleet as the admin's /health shows it (mcp/http/health-view.ts). The
 * token comes from a variable, never argv; it is sent to the address given and nowhere else (a
 * redirect is not followed). Whatever the gateway answers is checked and bounded before it is shown.
 */

export interface GatewayStatus {
  /** The /health address asked. */
  url: string;
  status: 'ok' | 'degraded';
  reasons: string[];
  replicas: FleetReplica[];
}

/** Longest answer read: a fleet's /health is a few KiB. */
const MAX_ANSWER_BYTES = 1 << 20;
const TIMEOUT_MS = 10_000;

/** The /health address of a gateway given by its base, its /mcp or its /health address. Pure. */
export function healthUrl(given: string): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new ToolError('INVALID_INPUT', `"${printable(given)}" is not an address; give the gateway's, such as http://127.0.0.1:8000.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolError('INVALID_INPUT', `The address must be http(s), not ${printable(url.protocol)}.`);
  if (url.username || url.password || url.search)
    throw new ToolError('INVALID_INPUT', 'The address carries credentials or a query: give the bare address, and the token in MCPKIT_TOKEN (or --token-env).');
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/(mcp|health)$/, '') + '/health';
  url.hash = '';
  return url;
}

/** The admin's token, from the variable --token-env names (that one must be set), else MCPKIT_TOKEN when set. */
export function adminToken(env: NodeJS.ProcessEnv, tokenEnv: string | undefined): { token?: string; from: string } {
  const name = tokenEnv ?? 'MCPKIT_TOKEN';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ToolError('INVALID_INPUT', `--token-env takes a variable's name, such as GATEWAY_TOKEN.`);
  const value = env[name]?.trim();
  if (tokenEnv !== undefined && !value)
    throw new ToolError('INVALID_INPUT', `--token-env names ${name}, which is ${env[name] === undefined ? 'not set' : 'empty'}.`, {
      hint: `Set it to the gateway's serve.token first: export ${name}=...`,
    });
  return value ? { token: value, from: name } : { from: name };
}

/** Asks the gateway's /health for its fleet. Throws a ToolError naming what went wrong and what to do. */
export async function gatewayStatus(given: string, auth: { token?: string; from: string }): Promise<GatewayStatus> {
  const url = healthUrl(given);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}) },
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new ToolError('UNAVAILABLE', `Cannot reach the gateway at ${url.href}: ${cause}.`, {
      hint: 'Check the address and that "mcpkit serve --http" runs there.',
    });
  }
  if (response.status >= 300 && response.status < 400)
    throw new ToolError(
      'UPSTREAM_ERROR',
      `${url.href} answered a redirect (HTTP ${response.status}) to ${printable(response.headers.get('location') ?? '?')}.`,
      {
        hint: 'Give the address it redirects to: the token is sent to the address given only.',
      },
    );
  if (response.status === 401 || response.status === 403) throw notTheAdmin(url, auth, `it answered HTTP ${response.status}`);
  const body = await boundedText(response);
  if (!response.ok) throw new ToolError('UPSTREAM_ERROR', `${url.href} answered HTTP ${response.status}: ${printable(body.slice(0, 200))}`);
  const answer = parsedHealth(body);
  if (!answer)
    throw new ToolError('UPSTREAM_ERROR', `${url.href} did not answer as mcpkit's /health does.`, { hint: 'Is this the address of "mcpkit serve --http"?' });
  if (!answer.replicas) throw notTheAdmin(url, auth, 'it showed this replica only');
  return { url: url.href, status: answer.status, reasons: answer.reasons, replicas: answer.replicas };
}

function notTheAdmin(url: URL, auth: { token?: string; from: string }, what: string): ToolError {
  if (!auth.token)
    return new ToolError(
      'AUTH_FAILED',
      `The gateway at ${url.origin} shows its fleet to its admin only, and no token was sent (${auth.from} is not set): ${what}.`,
      {
        hint: `Set ${auth.from} to the gateway's serve.token, or name another variable with --token-env.`,
      },
    );
  return new ToolError(
    'AUTH_FAILED',
    `The gateway at ${url.origin} did not show its fleet to the token in ${auth.from} (${what}): this token is not the admin's.`,
    {
      hint: "The fleet is the admin's: use serve.token's value. A named client's or a view's token sees one replica's health only.",
    },
  );
}

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ToolError('UPSTREAM_ERROR', `The gateway's /health answer is over ${MAX_ANSWER_BYTES} bytes: not mcpkit's.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isText = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** /health's answer, if it is one; `replicas` only when the fleet was shown. Pure. */
export function parsedHealth(body: string): { status: 'ok' | 'degraded'; reasons: string[]; replicas?: FleetReplica[] } | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || (value.status !== 'ok' && value.status !== 'degraded')) return undefined;
  const reasons = Array.isArray(value.reasons) ? value.reasons.filter(isText) : [];
  if (!Array.isArray(value.replicas)) return { status: value.status, reasons };
  const replicas = (value.replicas as Record<string, unknown>[]).filter(isReplica);
  return { status: value.status, reasons, replicas };
}

function isReplica(r: Record<string, unknown>): r is Record<string, unknown> & FleetReplica {
  const config = r?.config as Record<string, unknown> | undefined;
  return (
    !!r &&
    [r.id, r.version, r.started_at, r.heartbeat_at].every(isText) &&
    !!config &&
    isText(config.digest) &&
    isCount(config.generation) &&
    isCount(r.in_flight) &&
    isCount(r.seen_ms_ago) &&
    typeof r.stale === 'boolean' &&
    typeof r.self === 'boolean'
  );
}

/** "just now", "4 s ago", "3 min ago". Pure. */
export function seenAgo(ms: number): string {
  if (ms < 1000) return 'just now';
  if (ms < 120_000) return `${Math.round(ms / 1000)} s ago`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${(ms / 3_600_000).toFixed(1)} h ago`;
}

/** The fleet as a table, its verdict first and its reasons after. Pure. */
export function renderGatewayStatus(status: GatewayStatus, color: ChalkInstance, table: (rows: Record<string, unknown>[]) => string): string {
  const rows = status.replicas.map((r) => ({
    replica: `${r.id}${r.self ? ' (answered)' : ''}`,
    version: r.version,
    started: r.started_at.replace(/\.\d+Z$/, 'Z'),
    generation: r.config.generation,
    digest: shortDigest(r.config.digest),
    'in flight': r.in_flight,
    'last seen': `${seenAgo(r.seen_ms_ago)}${r.stale ? ' (stale)' : ''}`,
  }));
  const configs = new Set(status.replicas.filter((r) => !r.stale).map((r) => r.config.digest)).size;
  const head =
    status.status === 'ok'
      ? color.green(`ok: ${status.replicas.length} replica(s), ${configs === 1 ? 'one config' : `${configs} configs`}`)
      : color.red(`degraded: ${status.replicas.length} replica(s)`);
  const reasons = status.reasons.map((r) => `- ${printable(r)}`);
  return [`${head} (${printable(status.url)})`, '', table(rows), ...(reasons.length ? ['', ...reasons] : [])].join('\n');
}
