import { SETTING_DEFAULTS } from '../config/schema/defaults.js';
import { printable } from '../core/printable.js';
import { ToolError } from '../core/errors.js';
import { backoffDelay } from '../core/backoff.js';

/**
 * A client of the MCP registry API (`/v0.1`), which the official registry and PulseMCP's
 * sub-registry both serve. Every request has a timeout and is retried with backoff on 429, 5xx
 * and network errors (a 429's Retry-After is honoured up to MAX_RETRY_AFTER_MS; longer waits
 * are reported instead). Failures are ToolErrors whose messages say what to set or do ("Set PULSEMCP_SUBREGISTRY_API_KEY.").
 */
export interface RegistryEndpoint {
  /** Base URL, e.g. https://registry.modelcontextprotocol.io */
  url: string;
  apiKey?: string;
  tenantId?: string;
}

export interface ClientOptions extends RegistryEndpoint {
  timeoutMs?: number;
  retries?: number;
  /** Told before each retry what failed and how long until the next attempt (a terminal says it on stderr). */
  onRetry?: (message: string) => void;
  /** First backoff delay; doubled per retry. */
  backoffMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /** Largest answer read, after decompression (a bigger one is RESPONSE_TOO_LARGE). */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = SETTING_DEFAULTS.registry.max_response_bytes;
const MAX_DEPTH = 100;
/** Redirects followed for one request; a registry needs none or one. */
const MAX_REDIRECTS = 5;

export interface ServerEntry {
  server: { name: string; version?: string; [key: string]: unknown };
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerList {
  servers: ServerEntry[];
  metadata?: { nextCursor?: string; count?: number; [key: string]: unknown };
  [key: string]: unknown;
}

export interface ListQuery {
  cursor?: string;
  limit?: number;
  search?: string;
  updated_since?: string;
  version?: string;
  /** Newer registries leave deleted servers out of lists unless asked. */
  include_deleted?: boolean;
}

export const DEFAULT_TIMEOUT_MS = SETTING_DEFAULTS.registry.timeout_ms;
export const DEFAULT_RETRIES = SETTING_DEFAULTS.registry.retries;
export const MAX_RETRY_AFTER_MS = 10_000;
const API = '/v0.1';

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (header.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The most useful text of an error body: RFC 7807 `detail`, then `message`, `error`, `title`, else the text. */
export function errorDetail(body: string): string {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error', 'title']) {
      const value = json[key];
      // One line, whatever the registry wrote: its text ends up in an error message.
      if (typeof value === 'string' && value.trim() !== '') return oneLine(value);
      if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string')
        return oneLine((value as { message: string }).message);
    }
  } catch {
    /* not JSON */
  }
  const text = oneLine(body);
  return text === '' ? 'no details given' : text;
}

function oneLine(text: string): string {
  return printable(text.trim().replace(/\s+/g, ' ')).slice(0, 300);
}

export class RegistryClient {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ClientOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.backoffMs = options.backoffMs ?? 250;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  private async retryAfter(ms: number, attempt: number, why: string): Promise<void> {
    this.options.onRetry?.(`registry ${this.options.url}: ${why}; retrying in ${(ms / 1000).toFixed(1)} s (attempt ${attempt + 2} of ${this.retries + 1})`);
    await this.sleep(ms);
  }

  /** The proxy's reconnect schedule: doubling from backoffMs, capped like Retry-After. */
  private backoff(attempt: number): number {
    return backoffDelay(attempt, { baseMs: this.backoffMs, maxMs: MAX_RETRY_AFTER_MS, maxAttempts: Number.POSITIVE_INFINITY, stableMs: 0 })!;
  }

  get url(): string {
    return this.options.url;
  }

  async listServers(query: ListQuery = {}, signal?: AbortSignal): Promise<ServerList> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
    const qs = params.toString();
    const body = await this.request(`${API}/servers${qs ? `?${qs}` : ''}`, {}, signal);
    return checkList(body, 'GET /v0.1/servers');
  }

  async getServer(name: string, version = 'latest', signal?: AbortSignal): Promise<ServerEntry> {
    const path = `${API}/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
    const body = await this.request(path, { name, version }, signal);
    if (!isObject(body) || !isObject(body.server) || typeof body.server.name !== 'string') {
      throw badShape(`GET ${path}`, 'expected an object with a "server" object holding a "name"');
    }
    return body as ServerEntry;
  }

  async listVersions(name: string, signal?: AbortSignal): Promise<ServerList> {
    const path = `${API}/servers/${encodeURIComponent(name)}/versions`;
    const body = await this.request(path, { name }, signal);
    return checkList(body, `GET ${path}`);
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers['X-API-Key'] = this.options.apiKey;
    if (this.options.tenantId) headers['X-Tenant-ID'] = this.options.tenantId;
    return headers;
  }

  /**
   * One GET, following redirects by hand: credentials (X-API-Key, X-Tenant-ID) go only to the
   * registry's own origin, a loop or more than MAX_REDIRECTS hops is an error, and the body is
   * read up to maxResponseBytes after decompression (a gzip bomb stops there too).
   */
  private async fetchFollowing(url: string, signal: AbortSignal): Promise<{ response: Response; text: string }> {
    const origin = new URL(url).origin;
    const seen = new Set<string>();
    let current = url;
    for (let hop = 0; ; hop++) {
      seen.add(current);
      const sameOrigin = new URL(current).origin === origin;
      const response = await this.fetchImpl(current, { headers: sameOrigin ? this.headers() : { accept: 'application/json' }, signal, redirect: 'manual' });
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (location === null) return { response, text: await readLimited(response, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, current) };
      await response.body?.cancel().catch(() => undefined);
      const next = new URL(location, current).toString();
      if (seen.has(next) || hop + 1 > MAX_REDIRECTS) {
        throw new ToolError(
          'UPSTREAM_ERROR',
          `The registry at ${this.options.url} redirects ${seen.has(next) ? 'in a loop' : `more than ${MAX_REDIRECTS} times`} (${current} -> ${next}).`,
          {
            details: { url, redirects: [...seen, next] },
            hint: 'Check the registry URL in the config (registry.sources).',
          },
        );
      }
      current = next;
    }
  }

  private async request(path: string, subject: Subject, signal?: AbortSignal): Promise<unknown> {
    const url = requestUrl(this.options.url, path);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.retries;
      let response: Response;
      let text: string;
      try {
        const timeout = AbortSignal.timeout(this.timeoutMs);
        // The whole exchange (redirects and the body too) is under the timeout, and retried like one.
        ({ response, text } = await this.fetchFollowing(url, signal ? AbortSignal.any([signal, timeout]) : timeout));
      } catch (error) {
        if (signal?.aborted || error instanceof ToolError) throw error;
        const timedOut = (error as Error).name === 'TimeoutError';
        if (!last) {
          await this.retryAfter(this.backoff(attempt), attempt, timedOut ? `no answer within ${this.timeoutMs} ms` : 'could not connect');
          continue;
        }
        if (timedOut) {
          const tries = attempt === 0 ? '' : ` (each of ${attempt + 1} attempts)`;
          throw new ToolError('TIMEOUT', `Registry request timed out after ${this.timeoutMs} ms${tries}: ${url}`, {
            details: { url, timeout_ms: this.timeoutMs, attempts: attempt + 1 },
            hint: 'Try again, or raise registry.timeout_ms in the config.',
          });
        }
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new ToolError(
          'UNAVAILABLE',
          `Could not reach the registry at ${this.options.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
          {
            details: { url, attempts: attempt + 1 },
            hint: 'Check the registry URL (registry.sources in the config) and your network.',
          },
        );
      }
      if (response.ok) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw badShape(`GET ${path}`, `the body is not JSON (starts with ${JSON.stringify(text.slice(0, 60))})`);
        }
        // Nothing in the API nests deeply; an answer that does would overflow the stack of whoever prints it.
        if (deeperThan(body, MAX_DEPTH)) throw badShape(`GET ${path}`, `the JSON is nested deeper than ${MAX_DEPTH} levels`);
        return body;
      }
      const status = response.status;
      const wait = status === 429 ? retryAfterMs(response.headers.get('retry-after')) : undefined;
      const retriable = status === 429 || status >= 500;
      if (retriable && !last && (wait === undefined || wait <= MAX_RETRY_AFTER_MS)) {
        await this.retryAfter(wait ?? this.backoff(attempt), attempt, `HTTP ${status}`);
        continue;
      }
      throw httpError(status, errorDetail(text), subject, { url, attempts: attempt + 1, retry_after_ms: wait });
    }
  }
}

/** What a request is about, for the 404 message (`Server not found: NAME (version: V)`). */
interface Subject {
  name?: string;
  version?: string;
}

/**
 * A request's URL: the registry's base path (a proxy's /registry) followed by the API path, and
 * the base's query (`?key=...`) kept beside the request's own parameters. Pure.
 */
export function requestUrl(base: string, path: string): string {
  const url = new URL(base);
  const [pathname, query] = path.split('?', 2) as [string, string | undefined];
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${pathname}`;
  for (const [key, value] of new URLSearchParams(query ?? '')) url.searchParams.set(key, value);
  return url.toString();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkList(body: unknown, request: string): ServerList {
  if (!isObject(body) || !Array.isArray(body.servers)) throw badShape(request, 'expected an object with a "servers" array');
  const bad = body.servers.findIndex((e: unknown) => !isObject(e) || !isObject(e.server) || typeof e.server.name !== 'string');
  if (bad >= 0) throw badShape(request, `servers[${bad}] has no "server" object with a "name"`);
  if (body.metadata !== undefined && !isObject(body.metadata)) throw badShape(request, '"metadata" is not an object');
  return body as ServerList;
}

function badShape(request: string, problem: string): ToolError {
  return new ToolError('UPSTREAM_ERROR', `The registry's answer to ${request} is not what the API promises: ${problem}.`, {
    details: { request, problem },
    hint: 'Check that the registry URL points at an MCP registry (API /v0.1).',
  });
}

function httpError(status: number, detail: string, subject: Subject, details: Record<string, unknown>): ToolError {
  const all = Object.fromEntries(Object.entries({ status, ...details }).filter(([, v]) => v !== undefined));
  switch (status) {
    case 401:
      return new ToolError('AUTH_FAILED', `Authentication failed: ${detail}`, {
        details: all,
        hint: 'Check the API key (registry.sources.NAME.api_key, or PULSEMCP_SUBREGISTRY_API_KEY).',
      });
    case 403:
      return new ToolError('FORBIDDEN', `Access denied: ${detail}`, { details: all, hint: 'The key or tenant has no access to this registry or entry.' });
    case 404:
      if (subject.name !== undefined) {
        const version = subject.version === undefined ? '' : ` (version: ${subject.version})`;
        return new ToolError('NOT_FOUND', `Server not found: ${subject.name}${version}`, {
          details: { ...all, name: subject.name, version: subject.version },
          hint: 'Search with: mcpkit registry list --search TEXT',
        });
      }
      return new ToolError('NOT_FOUND', `API request failed (404): ${detail}`, { details: all, hint: 'Check the registry URL.' });
    case 429:
      return new ToolError('RATE_LIMITED', `Rate limit exceeded: ${detail}`, {
        details: all,
        hint: details.retry_after_ms === undefined ? 'Wait a little and try again.' : `Try again in ${Math.ceil(Number(details.retry_after_ms) / 1000)} s.`,
      });
    default:
      return new ToolError('UPSTREAM_ERROR', `API request failed (${status}): ${detail}`, { details: all });
  }
}

/** The body as text, refused past `max` bytes (as declared, or as it arrives after decompression). */
async function readLimited(response: Response, max: number, url: string): Promise<string> {
  const tooLarge = () =>
    new ToolError('RESPONSE_TOO_LARGE', `The registry's answer from ${url} is over ${max} bytes; it was not read further.`, {
      details: { url, max_bytes: max },
      hint: 'Ask for less (a smaller --limit, a --search), or raise registry.max_response_bytes.',
    });
  const declared = Number(response.headers.get('content-length'));
  if (declared > max && !response.headers.get('content-encoding')) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether a parsed JSON value nests deeper than `max` (iterative: the check must not overflow either). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
