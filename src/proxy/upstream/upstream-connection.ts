import { printable } from '../../core/printable.js';
import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ConnectLimit } from '../../tool/context.js';
import type { Transport, ClientCapabilities, PriorDiscovery } from '@modelcontextprotocol/client';
import { upstreamAuthFailure } from '../../auth/upstream-errors.js';
import type { UpstreamOAuth } from '../../auth/upstream-oauth.js';
import { SERVER_MAX_TOTAL_MS, SERVER_TIMEOUT_MS, type ProtocolChoice } from '../../config/schema/defaults.js';
import type { ServerConfig } from '../../config/schema/schema.js';
import { attemptsAfterClose, backoffDelay, DEFAULT_BACKOFF } from '../../core/backoff.js';
import type { ToolError } from '../../core/errors.js';
import { redact } from '../../core/redact.js';
import { eraPlan, refusesLegacy, verdictOf, versionNegotiation } from '../eras/era.js';
import { RawForwarder } from './raw-forwarder.js';
import { connectTimeoutError, eraMismatchError, unavailableError, type FailureSubject } from './upstream-failure.js';
import { ConnectTimeout, connectTransport } from './upstream-transport.js';

export type UpstreamState = 'idle' | 'connecting' | 'ready' | 'down' | 'closed' | 'needs_login';

export type { DownstreamRelay, UpstreamOptions } from './upstream-options.js';
import type { DownstreamRelay, UpstreamOptions } from './upstream-options.js';

/** What the owner of a connection does at its turning points. */
export interface ConnectionHooks {
  /** A new SDK client, before it connects: its request and notification handlers. */
  setUp(client: Client, offered: ClientCapabilities): void;
  /** Connected (first time or again). */
  connected(client: Client): Promise<void>;
  /** Connected again by the backoff timer, not by a call. */
  reconnected(client: Client): Promise<void>;
}

/** The client capabilities an upstream may be offered: the ones whose requests mcpkit relays. */
const RELAYED_CAPABILITIES = ['sampling', 'elicitation', 'roots'] as const;

/**
 * What a server is offered of its downstream client's capabilities: those the client declared,
 * except a remote client's roots, unless the server's entry says `roots: forward`. A remote
 * client's roots are folders on its machine; a server on this one would take them for its own
 * (server-filesystem replaces its allowed folders with them). Pure.
 */
export function relayedCapabilities(
  downstream: Pick<DownstreamRelay, 'capabilities' | 'remote'> | undefined,
  config: Pick<ServerConfig, 'roots'>,
): ClientCapabilities {
  const offered: ClientCapabilities = {};
  for (const key of RELAYED_CAPABILITIES) {
    if (!downstream?.capabilities[key]) continue;
    if (key === 'roots' && !forwardsRoots(downstream, config)) continue;
    Object.assign(offered, { [key]: downstream.capabilities[key] });
  }
  return offered;
}

/** Whether a client's roots reach this server: always from a local (stdio) client; from a remote one only with `roots: forward`. Pure. */
export function forwardsRoots(client: { remote?: boolean } | undefined, config: Pick<ServerConfig, 'roots'>): boolean {
  return client?.remote !== true || config.roots === 'forward';
}
const STDERR_LINES = 20;
/**
 * What a 2025 server is offered on the connection 2026 clients share. Not roots: a 2025 server asks
 * for roots when it connects, outside any call, where no 2026 client can be asked.
 */
const BRIDGED_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} } };

/**
 * The connection to one upstream server and its states: idle until first used, connecting,
 * ready, down after a failure or crash (reconnected with backoff, bounded; a call after the
 * attempts ran out starts a new round and still fails fast), needs_login when only a login can
 * help, closed for good. One connection attempt at a time; close() ends an attempt under way.
 */
export class UpstreamConnection {
  state: UpstreamState = 'idle';
  client?: Client;
  lastError?: string;
  /** Why close() was called, when a config reload did it. */
  private closedBecause?: string;
  attempts = 0;
  readonly stderrTail: string[] = [];
  readonly forwarder = new RawForwarder();
  private connecting?: Promise<Client>;
  /** The transport of a connection attempt under way: closing closes it too. */
  private attempt?: Transport;
  private upSince = 0;
  private reconnectTimer?: NodeJS.Timeout;
  /** Reconnect attempts ran out; the next call starts a fresh round (and still fails fast). */
  private gaveUp = false;
  private oauthInUse?: UpstreamOAuth;
  /** The server's era as the last connection found it (protocol: auto), so that reconnecting skips the probe. */
  private verdict?: PriorDiscovery;
  /** The server refused the 2025 handshake of a 2025 client's connection: it speaks 2026-07-28 only. */
  private modernOnly = false;
  /** The client capabilities the connection offers the server (sorted names): a server may list more tools for more. */
  capabilitySet?: string;

  constructor(
    readonly options: UpstreamOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    if (options.problems) {
      this.state = 'down';
      this.lastError = options.problemsHint ? options.problems.join('; ') : `its config entry cannot be used (${options.problems.join('; ')})`;
    }
  }

  get name(): string {
    return this.options.name;
  }

  get timeoutMs(): number {
    return this.shorterLimit?.ms ?? this.options.config.timeout_ms ?? SERVER_TIMEOUT_MS;
  }

  /** A one-off look's own limit where it is shorter than the server's timeout_ms, which it then replaces. */
  private get shorterLimit(): ConnectLimit | undefined {
    const limit = this.options.limit;
    return limit && limit.ms < (this.options.config.timeout_ms ?? SERVER_TIMEOUT_MS) ? limit : undefined;
  }

  /** The ceiling of a tool call that reports progress (each report restarts timeoutMs). */
  get maxTotalMs(): number {
    return this.options.config.max_total_ms ?? SERVER_MAX_TOTAL_MS;
  }

  /** What the last attempt said while the server waits for a login (state needs_login). */
  loginError?: ToolError;

  connect(): Promise<Client> {
    if (this.state === 'closed' || this.options.problems) return Promise.reject(this.unavailable());
    if (this.client && this.state === 'ready') return Promise.resolve(this.client);
    return (this.connecting ??= this.open().finally(() => (this.connecting = undefined)));
  }

  /**
   * Connects, unless down or closed: then UNAVAILABLE at once. Except the first reconnect after
   * a failure, which a call makes at once instead of waiting for the backoff: a server that
   * crashed once is started again, and the call that found it down succeeds. A server that fails
   * again soon is past its first attempt, and calls fail fast while the backoff runs.
   */
  async connectOrUnavailable(): Promise<Client> {
    const policy = this.options.backoff ?? DEFAULT_BACKOFF;
    if (this.state === 'down' && this.attempts <= 1 && !this.gaveUp && policy.maxAttempts !== 0 && !this.options.problems) {
      clearTimeout(this.reconnectTimer);
      const reconnected = this.connect();
      void reconnected.then((client) => this.hooks.reconnected(client)).catch(() => undefined);
      return reconnected;
    }
    if (this.state === 'down' || this.state === 'closed') throw this.downNow();
    return this.connect();
  }

  /** The UNAVAILABLE error for a call while down; after the attempts ran out, a call also starts a new round. */
  downNow(): ToolError {
    if (this.state === 'down' && this.gaveUp && !this.options.problems) {
      this.gaveUp = false;
      this.attempts = 0;
      this.scheduleReconnect();
    }
    return this.unavailable();
  }

  unavailable(): ToolError {
    return unavailableError(this.subject());
  }

  private subject(): FailureSubject {
    const { config, backoff, problems, problemsHint } = this.options;
    const reached = config.command !== undefined ? [config.command, ...(config.args ?? [])].join(' ') : `curl -i ${config.url}`;
    return {
      name: this.name,
      state: this.state,
      lastError: this.lastError,
      stderrTail: this.stderrTail,
      problems,
      ...(problemsHint ? { problemsHint } : {}),
      reconnects: (backoff ?? DEFAULT_BACKOFF).maxAttempts !== 0,
      reached,
      ...(this.closedBecause ? { closedBecause: this.closedBecause } : {}),
    };
  }

  /** The error a failure becomes when it means credentials (../auth/upstream-errors.ts); undefined otherwise. */
  authFailure(error: unknown): ToolError | undefined {
    return upstreamAuthFailure(error, { name: this.name, config: this.options.config, ...(this.oauthInUse ? { oauth: this.oauthInUse } : {}) });
  }

  /** Ends the connection for good; `because` says why to calls still waiting (else: mcpkit is shutting down). */
  async close(because?: string): Promise<void> {
    this.state = 'closed';
    if (because) this.closedBecause = because;
    this.forwarder.failAll(because ?? 'mcpkit is shutting down');
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    // An attempt under way (a remote that is slow or silent) must not keep the process alive.
    await Promise.allSettled([client?.close(), this.attempt?.close()]);
  }

  /**
   * Closes the connection but not for good: back to idle, and the next use connects again (a
   * client's own connections, put to sleep to make room for another client's: serve's cap).
   */
  async sleep(): Promise<void> {
    if (this.state === 'closed' || this.state === 'idle') return;
    this.state = 'idle';
    clearTimeout(this.reconnectTimer);
    this.attempts = 0;
    this.gaveUp = false;
    const client = this.client;
    this.client = undefined;
    this.forwarder.detach();
    this.forwarder.failAll('the connection was put to sleep');
    await Promise.allSettled([client?.close(), this.attempt?.close()]);
  }

  /** Read through a method: TypeScript narrows `state` within open(), but close() can change it meanwhile. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  private async open(): Promise<Client> {
    this.state = 'connecting';
    const offered = relayedCapabilities(this.options.downstream, this.options.config);
    // 2026 clients declare capabilities per request; a 2025 server learns them once, so it is offered
    // what may be bridged, and a question for a client that lacks the capability is refused (./input-bridge.ts).
    if (this.options.clientEra === 'modern') Object.assign(offered, BRIDGED_CAPABILITIES);
    this.capabilitySet = Object.keys(offered).sort().join(',');
    const plan = eraPlan(this.options.config.protocol ?? 'auto', this.options.clientEra, this.options.config.command !== undefined);
    let client: Client | undefined;
    try {
      this.oauthInUse = await this.oauth();
      if (plan === 'auto' && this.options.config.command !== undefined && !this.verdict) client = await this.probeStdio(offered);
      else if (plan !== 'legacy-first') client = await this.connectAs(plan, offered);
      else if (this.modernOnly) client = await this.connectAs('2026-07-28', offered);
      else {
        try {
          client = await this.connectAs('2025-11-25', offered);
        } catch (error) {
          // A 2025 client's connection to a server that speaks only 2026-07-28: the bridge's side.
          if (this.isClosed() || !refusesLegacy(error)) throw error;
          this.modernOnly = true;
          client = await this.connectAs('2026-07-28', offered);
        }
      }
    } catch (error) {
      // A stale verdict (the server changed era) must not outlive the failure it may have caused.
      this.verdict = undefined;
      this.lastError = (error as Error).message;
      if (this.isClosed()) throw this.unavailable();
      const auth = this.authFailure(error);
      if (auth) {
        // Retrying cannot help until someone logs in; the next call tries again (the login may be done by then).
        this.state = 'needs_login';
        this.lastError = `${auth.message} ${auth.hint ?? ''}`.trim();
        this.loginError = auth;
        throw auth;
      }
      this.state = 'down';
      this.scheduleReconnect();
      if (error instanceof ConnectTimeout) throw connectTimeoutError(this.subject(), error.over, error.ms);
      const pinned = this.options.config.protocol;
      if (pinned && pinned !== 'auto' && ((error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) || refusesLegacy(error)))
        throw eraMismatchError(this.subject(), pinned, (error as Error).message);
      throw this.unavailable();
    }
    if (this.isClosed()) {
      // Closed while it connected (the attempt was past the point where closing could stop it).
      await client.close().catch(() => undefined);
      throw this.unavailable();
    }
    this.client = client;
    this.state = 'ready';
    this.lastError = undefined;
    this.upSince = Date.now();
    client.onclose = () => this.closedUnexpectedly(client);
    await this.hooks.connected(client);
    this.options.woke?.();
    this.options.logger.debug(`${this.name}: connected`);
    return client;
  }

  /**
   * A stdio server whose era is not known yet, for 2026 clients: probed on its own process
   * (server/discover, then initialize on the same pipe for a 2025 server), so it starts once. A
   * server that exits on a request before initialize closed during the probe: it is started again,
   * with the 2025 handshake, and taken for a 2025 server from then on.
   */
  private async probeStdio(offered: ClientCapabilities): Promise<Client> {
    try {
      return await this.connectAs('auto', offered, { probeInPlace: true });
    } catch (error) {
      if (this.isClosed() || !closedDuringProbe(error)) throw error;
      this.options.logger.debug(`${this.name}: it closed during the server/discover probe; starting it again with the 2025-11-25 handshake`);
      const client = await this.connectAs('2025-11-25', offered);
      this.verdict = { kind: 'legacy' };
      return client;
    }
  }

  /** A new SDK client speaking `choice`, connected (closed again if that fails). */
  private async connectAs(choice: ProtocolChoice, offered: ClientCapabilities, how: { probeInPlace?: boolean } = {}): Promise<Client> {
    const { config } = this.options;
    const client = new Client(
      { name: 'mcpkit', version: this.options.version },
      { capabilities: offered, versionNegotiation: versionNegotiation(choice, config.command !== undefined, this.timeoutMs) },
    );
    this.hooks.setUp(client, offered);
    try {
      const transport = await connectTransport(client, {
        name: this.name,
        config,
        env: this.options.env,
        withheldEnv: this.options.withheldEnv?.() ?? new Set(),
        ...(this.options.ownFiles ? { ownFiles: this.options.ownFiles } : {}),
        timeoutMs: this.timeoutMs,
        timeoutWhy: this.shorterLimit?.why ?? `mcp_servers.${this.name}.timeout_ms`,
        logger: this.options.logger,
        ...(this.oauthInUse ? { oauth: this.oauthInUse } : {}),
        ...(this.options.waiting ? { waiting: this.options.waiting } : {}),
        ...(choice === 'auto' && this.verdict ? { prior: this.verdict } : {}),
        ...(how.probeInPlace ? { probeInPlace: true } : {}),
        stderrLine: (line) => this.stderrLine(line),
        attempt: (transport) => (this.attempt = transport),
        closed: () => this.isClosed(),
        isAuthFailure: (error) => this.authFailure(error) !== undefined,
      });
      this.forwarder.attach(transport, { modern: client.getProtocolEra() === 'modern' });
      if (choice === 'auto') this.verdict = verdictOf(client);
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  }

  /** The OAuth of a remote server with `auth:`: the one given, else its stored login (loaded only then). */
  private async oauth(): Promise<UpstreamOAuth | undefined> {
    const { config } = this.options;
    if (this.options.oauth) return this.options.oauth;
    if (!config.auth || config.command !== undefined) return undefined;
    const { storedOAuth, loginStore } = await import('../../auth/upstream-oauth.js');
    return storedOAuth(this.options.login ?? this.name, config, { store: loginStore(this.options.env) });
  }

  /** Masked as it comes in: a server that prints its environment must not put a ${VAR} secret into /health, errors or serve's log. */
  private stderrLine(raw: string): void {
    // A server's words, on a terminal or in a log: its secrets masked, its escape sequences shown as text.
    const line = printable(redact(raw));
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
    this.options.stderr?.(`[${this.name}] ${line}\n`);
  }

  private closedUnexpectedly(client: Client): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = undefined;
    this.forwarder.detach();
    this.state = 'down';
    this.lastError = 'the connection closed (the server exited or crashed)';
    this.forwarder.failAll(this.lastError);
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
        .then((client) => this.hooks.reconnected(client))
        .catch(() => undefined); // open() already scheduled the next attempt
    }, delay);
    this.reconnectTimer.unref();
  }
}

/** The SDK's word for a server that went away while its era was probed in place (it exits on a request before initialize). */
function closedDuringProbe(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe|probed in place/.test(error.message)
  );
}
