import { SERVER_TIMEOUT_MS } from '../config/defaults.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  CompleteResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CompleteRequest,
  type CompleteResult,
  type LoggingLevel,
  type LoggingMessageNotification,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { ServerConfig } from '../config/schema.js';
import { authRequired } from '../auth/auth-required.js';
import type { UpstreamOAuth } from '../auth/upstream-oauth.js';
import { ToolError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { withTimeout } from '../core/timeout.js';
import { attemptsAfterClose, backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from '../core/backoff.js';

/** One upstream MCP server: connected lazily, its tool list cached, reconnected with backoff after a crash. */
export type UpstreamState = 'idle' | 'connecting' | 'ready' | 'down' | 'closed' | 'needs_login';

export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  tools?: number;
  error?: string;
  stderr?: string[];
  reconnect_attempts: number;
}

/**
 * The one downstream client a connection belongs to, when it has one (see ProxyHub: a client that
 * declares sampling, elicitation or roots gets connections of its own). The upstream is offered
 * exactly those of the three capabilities the client declared, and its requests go to that client.
 */
export interface DownstreamRelay {
  readonly capabilities: ClientCapabilities;
  /** A server-to-client request, sent on; `related` is a call of the client's in flight to this server. */
  request(method: string, params: unknown, related: RequestId | undefined): Promise<Record<string, unknown>>;
}

export interface UpstreamOptions {
  name: string;
  config: ServerConfig;
  logger: Logger;
  version: string;
  /** Written to our stderr, prefixed with the server name. */
  stderr?: (line: string) => void;
  backoff?: BackoffPolicy;
  downstream?: DownstreamRelay;
  /** The config entry was set aside for these problems: the server is down from the start and never started. */
  problems?: readonly string[];
  /** Told once when connecting takes longer than SLOW_START_MS, so a terminal can say what it waits for. */
  waiting?: (message: string) => void;
  /** OAuth for a remote server; by default the stored login of a server with `auth: oauth`. */
  oauth?: UpstreamOAuth;
}

/** How long a connection may take before the wait is announced (npx fetching a package takes longer). */
const SLOW_START_MS = 2000;

/** The client capabilities an upstream may be offered: the ones whose requests mcpkit relays. */
const RELAYED_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const;

const DEFAULT_TIMEOUT_MS = SERVER_TIMEOUT_MS;
/** The SDK's JSON-RPC code for a request that timed out. */
const REQUEST_TIMEOUT = -32001;
const STDERR_LINES = 20;
/** Results are passed through as the upstream produced them: no second validation on the hot path. */
const PassThroughResult = z.looseObject({});

export class Upstream {
  readonly name: string;
  private readonly options: UpstreamOptions;
  private client?: Client;
  private transport?: Transport;
  private connecting?: Promise<Client>;
  /** The transport of a connection attempt under way: closing the upstream closes it too. */
  private attempt?: Transport;
  private state: UpstreamState = 'idle';
  private tools?: Tool[];
  private lastError?: string;
  private readonly stderrTail: string[] = [];
  private attempts = 0;
  private upSince = 0;
  private reconnectTimer?: NodeJS.Timeout;
  /** Reconnect attempts ran out; the next call starts a fresh round (and still fails fast). */
  private gaveUp = false;
  private readonly toolsListeners = new Set<() => void>();
  /** tools/call requests forwarded raw (see forwardCall), by the id we gave them upstream. */
  private readonly forwarded = new Map<
    string,
    { done: (message: JSONRPCMessage) => void; progress?: (message: JSONRPCMessage) => void; progressToken?: unknown }
  >();
  private forwardSeq = 0;
  private readonly promptListeners = new Set<() => void>();
  private readonly resourceListeners = new Set<() => void>();
  private readonly logListeners = new Set<(params: LoggingMessageNotification['params'], related: RequestId | undefined) => void>();
  private readonly updateListeners = new Set<(uri: string) => void>();
  /** The downstream's calls to this server in flight, oldest first (server-to-client requests relate to them). */
  private readonly related: RequestId[] = [];
  private wantedLevel?: LoggingLevel;
  private oauthInUse?: UpstreamOAuth;

  constructor(options: UpstreamOptions) {
    this.name = options.name;
    this.options = options;
    if (options.problems) {
      this.state = 'down';
      this.lastError = `its config entry cannot be used (${options.problems.join('; ')})`;
    }
  }

  /** Called when the tool list changed: list_changed from the server, or a reconnect. */
  onToolsChanged(listener: () => void): void {
    this.toolsListeners.add(listener);
  }

  onPromptsChanged(listener: () => void): void {
    this.promptListeners.add(listener);
  }

  onResourcesChanged(listener: () => void): void {
    this.resourceListeners.add(listener);
  }

  /** Log messages (notifications/message) the server sends. */
  onLog(listener: (params: LoggingMessageNotification['params'], related: RequestId | undefined) => void): void {
    this.logListeners.add(listener);
  }

  /** notifications/resources/updated for a URI the server was subscribed to. */
  onResourceUpdated(listener: (uri: string) => void): void {
    this.updateListeners.add(listener);
  }

  /** Marks a downstream call to this server as in flight until the returned function is called. */
  relate(id: RequestId | undefined): () => void {
    if (id === undefined) return () => {};
    this.related.push(id);
    return () => {
      const at = this.related.indexOf(id);
      if (at >= 0) this.related.splice(at, 1);
    };
  }

  /** The server's capabilities once connected. */
  capabilities(): import('@modelcontextprotocol/sdk/types.js').ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  private emit(listeners: Set<() => void>): void {
    for (const listener of listeners) listener();
  }

  private emitToolsChanged(): void {
    this.emit(this.toolsListeners);
  }

  get timeoutMs(): number {
    return this.options.config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  }

  status(): UpstreamStatus {
    const out: UpstreamStatus = { name: this.name, state: this.state, reconnect_attempts: this.attempts };
    if (this.tools) out.tools = this.tools.length;
    if (this.lastError) out.error = this.lastError;
    if (this.stderrTail.length) out.stderr = [...this.stderrTail];
    return out;
  }

  /** The upstream's tools, from cache once connected. */
  async listTools(): Promise<Tool[]> {
    if (this.tools && this.state === 'ready') return this.tools;
    const client = await this.connect();
    return this.refreshTools(client);
  }

  /** The tools last seen, without connecting (empty before the first listing). */
  cachedTools(): Tool[] {
    return this.tools ?? [];
  }

  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    signal?: AbortSignal,
    onprogress?: (progress: { progress: number; total?: number; message?: string }) => void,
    related?: RequestId,
  ): Promise<CallToolResult> {
    if (this.state === 'down' || this.state === 'closed') throw this.downNow();
    const client = await this.connect();
    const release = this.relate(related);
    try {
      return (await client.request({ method: 'tools/call', params: { name, arguments: args ?? {} } }, PassThroughResult, {
        timeout: this.timeoutMs,
        signal,
        ...(onprogress ? { onprogress } : {}),
      })) as CallToolResult;
    } catch (error) {
      throw this.callFailure(name, error as Error & { code?: number });
    } finally {
      release();
    }
  }

  /**
   * The one error a failed tools/call becomes, whichever path it took (the SDK client's, or the
   * forwarded hot path): the server is gone (UNAVAILABLE, with its last stderr lines), did not
   * answer in time (TIMEOUT), or answered with a JSON-RPC error (UPSTREAM_ERROR).
   */
  private callFailure(tool: string, error: { message: string; code?: number }): ToolError {
    const auth = this.authFailure(error);
    if (auth) return auth;
    if (this.state !== 'ready') return this.unavailable();
    if (error.code === REQUEST_TIMEOUT || /timed out/i.test(error.message)) {
      return new ToolError('TIMEOUT', `Server "${this.name}" did not answer ${tool} within ${this.timeoutMs} ms.`, {
        details: { server: this.name, tool },
        hint: `Raise mcp_servers.${this.name}.timeout_ms if the tool is slow.`,
      });
    }
    // The SDK prefixes "MCP error N: " on each side of the wire; the server's own words are what matter.
    const words = error.message.replace(/^(MCP error -?\d+: )+/, '');
    return new ToolError('UPSTREAM_ERROR', `Server "${this.name}" failed ${tool}: ${words}`, {
      details: { server: this.name, tool, ...(error.code !== undefined ? { upstream_code: error.code } : {}) },
    });
  }

  /** Prompts, resources and templates are read through (not cached): clients list them rarely. */
  async listPrompts(): Promise<Prompt[]> {
    const client = await this.connect();
    if (!client.getServerCapabilities()?.prompts) return [];
    return this.paged((cursor) =>
      client.listPrompts(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.prompts, next: r.nextCursor })),
    );
  }

  async getPrompt(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    const client = await this.connectOrUnavailable();
    return this.forward(`prompt ${name}`, () => client.getPrompt({ name, arguments: args }, { timeout: this.timeoutMs }));
  }

  async listResources(): Promise<Resource[]> {
    const client = await this.connect();
    if (!client.getServerCapabilities()?.resources) return [];
    return this.paged((cursor) =>
      client.listResources(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.resources, next: r.nextCursor })),
    );
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    const client = await this.connect();
    if (!client.getServerCapabilities()?.resources) return [];
    return this.paged((cursor) =>
      client
        .listResourceTemplates(cursor ? { cursor } : undefined, { timeout: this.timeoutMs })
        .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor })),
    );
  }

  async readResource(uri: string): Promise<ReadResourceResult> {
    const client = await this.connectOrUnavailable();
    return this.forward(`resource ${uri}`, () => client.readResource({ uri }, { timeout: this.timeoutMs }));
  }

  /**
   * The log level the downstream asked for: sent now when connected, else when the connection is
   * made (connections are lazy), to a server that logs.
   */
  async setLoggingLevel(level: LoggingLevel): Promise<void> {
    this.wantedLevel = level;
    if (this.state === 'ready' && this.client) await this.sendLevel(this.client);
  }

  private async sendLevel(client: Client): Promise<void> {
    const level = this.wantedLevel;
    if (!level || !client.getServerCapabilities()?.logging) return;
    await this.forward('logging/setLevel', () =>
      client.request({ method: 'logging/setLevel', params: { level } }, EmptyResultSchema, { timeout: this.timeoutMs }),
    );
  }

  /** resources/subscribe or unsubscribe; false for a server that does not take subscriptions. */
  async subscription(uri: string, on: boolean): Promise<boolean> {
    const client = await this.connectOrUnavailable();
    if (!client.getServerCapabilities()?.resources?.subscribe) return false;
    const method = on ? 'resources/subscribe' : 'resources/unsubscribe';
    await this.forward(`${method} ${uri}`, () => client.request({ method, params: { uri } }, EmptyResultSchema, { timeout: this.timeoutMs }));
    return true;
  }

  /** completion/complete; no candidates from a server that does not complete. */
  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    const client = await this.connectOrUnavailable();
    if (!client.getServerCapabilities()?.completions) return { completion: { values: [], hasMore: false } };
    return this.forward('completion/complete', () =>
      client.request({ method: 'completion/complete', params }, CompleteResultSchema, { timeout: this.timeoutMs }),
    );
  }

  /** The downstream client's roots changed: tell the server, if connected. */
  async rootsChanged(): Promise<void> {
    if (this.state === 'ready') await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  /** The UNAVAILABLE error for a call while down; after the attempts ran out, a call also starts a new round. */
  private downNow(): ToolError {
    if (this.state === 'down' && this.gaveUp && !this.options.problems) {
      this.gaveUp = false;
      this.attempts = 0;
      this.scheduleReconnect();
    }
    return this.unavailable();
  }

  private async connectOrUnavailable(): Promise<Client> {
    if (this.state === 'down' || this.state === 'closed') throw this.downNow();
    return this.connect();
  }

  private async forward<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const auth = this.authFailure(error);
      if (auth) throw auth;
      if (this.state !== 'ready') throw this.unavailable();
      throw new ToolError('UPSTREAM_ERROR', `Server "${this.name}" failed ${what}: ${(error as Error).message}`, { details: { server: this.name } });
    }
  }

  private async paged<T>(page: (cursor?: string) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const r = await page(cursor).catch((error) => {
        throw this.authFailure(error) ?? error;
      });
      items.push(...r.items);
      cursor = r.next;
    } while (cursor);
    return items;
  }

  connect(): Promise<Client> {
    if (this.state === 'closed' || this.options.problems) return Promise.reject(this.unavailable());
    if (this.client && this.state === 'ready') return Promise.resolve(this.client);
    return (this.connecting ??= this.open().finally(() => (this.connecting = undefined)));
  }

  /** True when a call can go straight to the connected transport. */
  get ready(): boolean {
    return this.state === 'ready' && this.transport !== undefined;
  }

  /**
   * The hot path of the proxy: sends a tools/call through the SDK transport as is, under an id of
   * ours, and hands back the upstream's response message, without the SDK's per-message protocol
   * work (schema parsing of request and result, an AbortController per call) on either side.
   * Progress notifications for the call are passed to `progress`. Returns a function that cancels.
   */
  forwardCall(
    params: Record<string, unknown>,
    done: (result: CallToolResult | ToolError) => void,
    progress?: (message: JSONRPCMessage) => void,
    related?: RequestId,
  ): () => void {
    const id = `mcpkit-${++this.forwardSeq}`;
    const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const release = this.relate(related);
    const finish = (message: JSONRPCMessage, failure?: ToolError) => {
      if (!this.forwarded.delete(id)) return;
      clearTimeout(timer);
      release();
      const answer = message as { result?: CallToolResult; error?: { code: number; message: string } };
      done(failure ?? answer.result ?? this.callFailure(String(params.name), answer.error ?? { message: 'no result' }));
    };
    const timer = setTimeout(() => {
      void this.transport?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timeout' } }).catch(() => undefined);
      finish({ jsonrpc: '2.0', id, error: { code: REQUEST_TIMEOUT, message: `Request timed out after ${this.timeoutMs} ms` } });
    }, this.timeoutMs);
    this.forwarded.set(id, { done: finish, progress, progressToken });
    this.transport!.send({ jsonrpc: '2.0', id, method: 'tools/call', params }).catch((error: Error) =>
      finish({ jsonrpc: '2.0', id, error: { code: -32000, message: error.message } }, this.authFailure(error)),
    );
    return () => {
      if (!this.forwarded.delete(id)) return;
      clearTimeout(timer);
      release();
      void this.transport
        ?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'cancelled by the client' } })
        .catch(() => undefined);
    };
  }

  /** Routes the upstream's answers to forwarded calls; everything else goes on to the SDK client. */
  private interceptForwarded(transport: Transport): void {
    const sdk = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { id?: RequestId; method?: string; params?: { progressToken?: unknown } };
      if (typeof m.id === 'string' && m.method === undefined) {
        const pending = this.forwarded.get(m.id);
        if (pending) return pending.done(message);
      }
      if (m.method === 'notifications/progress' && this.forwarded.size) {
        for (const pending of this.forwarded.values()) {
          if (pending.progress && pending.progressToken !== undefined && pending.progressToken === m.params?.progressToken) return pending.progress(message);
        }
      }
      sdk?.(message, extra);
    };
  }

  private failForwarded(reason: string): void {
    for (const [id, pending] of [...this.forwarded]) pending.done({ jsonrpc: '2.0', id, error: { code: -32000, message: reason } });
  }

  async close(): Promise<void> {
    this.state = 'closed';
    this.failForwarded('mcpkit is shutting down');
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    // An attempt under way (a remote that is slow or silent) must not keep the process alive.
    await Promise.allSettled([client?.close(), this.attempt?.close()]);
  }

  /** Read through a method: TypeScript narrows `state` within open(), but close() can change it meanwhile. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private unavailable(): ToolError {
    const tail = this.stderrTail.slice(-5).filter((l) => l.trim() !== '');
    const last = tail.length ? `\nLast stderr lines of ${this.name}:\n${tail.map((l) => `  ${l}`).join('\n')}` : '';
    return new ToolError('UNAVAILABLE', `Server "${this.name}" is unavailable${this.lastError ? `: ${this.lastError}` : ''}.${last}`, {
      details: { server: this.name, state: this.state, stderr: tail },
      hint:
        this.state === 'closed'
          ? 'mcpkit is shutting down.'
          : this.options.problems
            ? `Fix mcp_servers.${this.name} in the config ("mcpkit config validate" lists the problems); the other servers work meanwhile.`
            : `mcpkit reconnects with backoff; check the server on its own with: mcpkit server test ${this.name}`,
    });
  }

  private async open(): Promise<Client> {
    this.state = 'connecting';
    const downstream = this.options.downstream;
    const offered: ClientCapabilities = {};
    for (const key of RELAYED_CAPABILITIES) {
      if (downstream?.capabilities[key]) Object.assign(offered, { [key]: downstream.capabilities[key] });
    }
    const client = new Client({ name: 'mcpkit', version: this.options.version }, { capabilities: offered });
    if (downstream) {
      // What the server asks of the client goes to the client whose connection this is, related
      // to its oldest call to this server in flight (over HTTP: on that call's stream).
      const relay = (method: string) => async (request: { params?: unknown }) => downstream.request(method, request.params, this.related[0]) as never;
      if (offered.sampling) client.setRequestHandler(CreateMessageRequestSchema, relay('sampling/createMessage'));
      if (offered.elicitation) client.setRequestHandler(ElicitRequestSchema, relay('elicitation/create'));
      if (offered.roots) client.setRequestHandler(ListRootsRequestSchema, relay('roots/list'));
    }
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => this.logListeners.forEach((l) => l(n.params, this.related[0])));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => this.updateListeners.forEach((l) => l(n.params.uri)));
    // Prompt and resource lists are read through, so a change only needs passing on.
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => this.emit(this.promptListeners));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => this.emit(this.resourceListeners));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      await this.refreshTools(client).catch((error) => this.options.logger.warn(`${this.name}: tools refresh failed: ${(error as Error).message}`));
      this.emitToolsChanged();
    });
    try {
      const transport = await this.connectTransport(client);
      this.transport = transport;
      this.interceptForwarded(transport);
    } catch (error) {
      this.lastError = (error as Error).message;
      await client.close().catch(() => undefined);
      if (this.isClosed()) throw this.unavailable();
      const auth = this.authFailure(error);
      if (auth) {
        // Retrying cannot help until someone logs in; the next call tries again (the login may be done by then).
        this.state = 'needs_login';
        this.lastError = `${auth.message} ${auth.hint ?? ''}`.trim();
        throw auth;
      }
      this.state = 'down';
      this.scheduleReconnect();
      throw this.unavailable();
    }
    this.client = client;
    this.state = 'ready';
    this.lastError = undefined;
    this.upSince = Date.now();
    client.onclose = () => this.closedUnexpectedly(client);
    await this.sendLevel(client).catch((error) => this.options.logger.warn(`${this.name}: logging/setLevel failed: ${(error as Error).message}`));
    this.options.logger.debug(`${this.name}: connected`);
    return client;
  }

  private async connectTransport(client: Client): Promise<Transport> {
    const config = this.options.config;
    if (config.command !== undefined) {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      // The SDK passes only a handful of variables by default; npx and friends need the rest (PATH...).
      const env = { ...(process.env as Record<string, string>), ...config.env };
      const transport = new StdioClientTransport({ command: config.command, args: config.args ?? [], env, cwd: config.cwd, stderr: 'pipe' });
      this.captureStderr(transport.stderr);
      return this.bounded(client, transport, 'stdio');
    }
    const url = new URL(config.url!);
    const requestInit = { headers: config.headers ?? {} };
    const kind = config.transport ?? 'auto';
    const oauth = this.options.oauth ?? (config.auth ? (await import('../auth/upstream-oauth.js')).storedOAuth(this.name, config) : undefined);
    this.oauthInUse = oauth;
    const http = { requestInit, ...(oauth?.provider ? { authProvider: oauth.provider } : {}), ...(oauth?.fetch ? { fetch: oauth.fetch } : {}) };
    if (kind === 'sse') return this.connectSse(client, url, http);
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(url, http);
    try {
      return await this.bounded(client, transport, 'streamable HTTP');
    } catch (error) {
      // A server that wants a login said so over streamable HTTP: SSE would only say it again.
      if (kind === 'http' || this.isClosed() || this.authFailure(error)) throw error;
      this.options.logger.info(`${this.name}: streamable HTTP failed (${(error as Error).message}); trying SSE`);
      return this.connectSse(client, url, http);
    }
  }

  private async connectSse(client: Client, url: URL, options: import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransportOptions): Promise<Transport> {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    return this.bounded(client, new SSEClientTransport(url, options), 'SSE');
  }

  /** A 401 from a server without auth: oauth: its header was refused, or it wants credentials it was never given. */
  private credentialsWanted(): ToolError {
    const name = this.name;
    if (Object.keys(this.options.config.headers ?? {}).some((k) => k.toLowerCase() === 'authorization')) {
      return new ToolError('AUTH_FAILED', `Server "${name}" refused the credentials in mcp_servers.${name}.headers (HTTP 401).`, {
        details: { server: name },
        hint: 'Check the token its Authorization header carries.',
      });
    }
    return new ToolError('AUTH_REQUIRED', `Server "${name}" wants credentials (HTTP 401).`, {
      details: { server: name },
      hint: `If it uses OAuth: mcpkit server add ${name} --url ${this.options.config.url} --auth oauth --force, then mcpkit server login ${name}; else give it a header, e.g. --header "Authorization=Bearer \${TOKEN}".`,
    });
  }

  /**
   * AUTH_REQUIRED for an error that means "log in (again)": the stored login was refused and could
   * not be refreshed, or a 403 asked for scope the login lacks. Undefined for any other error.
   */
  private authFailure(error: unknown): ToolError | undefined {
    if (error instanceof ToolError) return error.code === 'AUTH_REQUIRED' ? error : undefined;
    const e = error as { name?: string; code?: number; message?: string } | undefined;
    if (!e) return undefined;
    if (!this.oauthInUse) return e.code === 401 ? this.credentialsWanted() : undefined;
    // The SDK's transports carry the HTTP status as `code` (StreamableHTTPError, SseError).
    if (e.name !== 'UnauthorizedError' && e.code !== 401 && e.code !== 403) return undefined;
    const challenge = this.oauthInUse.lastChallenge();
    const stepUp = challenge?.status === 403 && challenge.error === 'insufficient_scope' ? challenge.scope : undefined;
    return stepUp
      ? authRequired(this.name, `it asks for scope "${stepUp}", which the stored login does not have`, { scope: stepUp })
      : authRequired(this.name, `it refused the stored login (${e.message ?? 'unauthorized'})`);
  }

  /**
   * Connects over one transport within timeout_ms, handshake included: a server that accepts the
   * connection and never answers fails like one that refuses it, and the transport is closed
   * either way (an SSE stream that is left open reconnects on its own, forever).
   */
  private async bounded(client: Client, transport: Transport, what: string): Promise<Transport> {
    this.attempt = transport;
    const slow = this.options.waiting
      ? setTimeout(
          () =>
            this.options.waiting!(
              `waiting for server ${this.name} to answer over ${what} (gives up after ${Math.round(this.timeoutMs / 1000)} s, mcp_servers.${this.name}.timeout_ms)`,
            ),
          SLOW_START_MS,
        ).unref()
      : undefined;
    try {
      await withTimeout(
        client.connect(transport, { timeout: this.timeoutMs }),
        this.timeoutMs,
        () => new Error(`no answer over ${what} within ${this.timeoutMs} ms`),
      );
      return transport;
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(slow);
      this.attempt = undefined;
    }
  }

  private captureStderr(stream: import('node:stream').Stream | null): void {
    if (!stream) return;
    let partial = '';
    stream.on('data', (chunk: Buffer | string) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
        this.options.stderr?.(`[${this.name}] ${line}\n`);
      }
    });
  }

  private async refreshTools(client: Client): Promise<Tool[]> {
    this.tools = await this.paged((cursor) =>
      client.listTools(cursor ? { cursor } : undefined, { timeout: this.timeoutMs }).then((r) => ({ items: r.tools, next: r.nextCursor })),
    );
    return this.tools;
  }

  private closedUnexpectedly(client: Client): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = undefined;
    this.transport = undefined;
    this.state = 'down';
    this.lastError = 'the connection closed (the server exited or crashed)';
    this.failForwarded(this.lastError);
    this.attempts = attemptsAfterClose(this.attempts, Date.now() - this.upSince, this.options.backoff ?? DEFAULT_BACKOFF);
    this.options.logger.warn(`${this.name}: ${this.lastError}`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const policy = this.options.backoff ?? DEFAULT_BACKOFF;
    if (policy.maxAttempts === 0) return; // a one-off connection (server test) does not reconnect
    const delay = backoffDelay(this.attempts, policy);
    if (delay === undefined) {
      this.gaveUp = true;
      this.options.logger.error(`${this.name}: giving up after ${this.attempts} reconnect attempts; the next call will try again`);
      return;
    }
    this.attempts++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      if (this.state !== 'down') return;
      this.connect()
        .then((client) => this.refreshTools(client))
        .then(() => this.emitToolsChanged())
        .catch(() => undefined); // open() already scheduled the next attempt
    }, delay);
    this.reconnectTimer.unref();
  }
}
