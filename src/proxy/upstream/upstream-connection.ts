import type { Client, Transport } from '@modelcontextprotocol/client';
import { upstreamAuthFailure } from '../../auth/upstream-errors.js';
import { SERVER_MAX_TOTAL_MS } from '../../config/schema/defaults.js';
import { reconnectPolicy } from '../../core/backoff.js';
import type { ToolError } from '../../core/errors.js';
import { RawForwarder } from './raw-forwarder.js';
import { connectTimeoutError, eraMismatchError, unavailableError, type FailureSubject } from './upstream-failure.js';
import { ConnectTimeout } from './upstream-transport.js';
import { offeredCapabilities } from './offered-capabilities.js';
import { refusedEra, UpstreamHandshake } from './upstream-handshake.js';
import { ReconnectSchedule } from './reconnect-schedule.js';
import { StderrTail } from './stderr-tail.js';

export type UpstreamState = 'idle' | 'connecting' | 'ready' | 'down' | 'closed' | 'needs_login';

export type { DownstreamRelay, UpstreamOptions } from './upstream-options.js';
import { connectTimeout, type ConnectionHooks, type UpstreamOptions } from './upstream-options.js';
export { forwardsRoots, relayedCapabilities } from './offered-capabilities.js';

/**
 * The connection to one upstream server and its states: idle until first used, connecting,
 * ready, down after a failure or crash (reconnected with backoff, bounded; a call after the
 * attempts ran out starts a new round and still fails fast), needs_login when only a login can
 * help, closed for good. One connection attempt at a time; close() ends an attempt under way.
 * How an attempt is set up (OAuth, era, transport) is ./upstream-handshake.ts; when a connection
 * that went down is tried again, ./reconnect-schedule.ts; what the server is offered,
 * ./offered-capabilities.ts; what it says on stderr, ./stderr-tail.ts.
 */
export class UpstreamConnection {
  state: UpstreamState = 'idle';
  client?: Client;
  lastError?: string;
  /** Why close() was called, when a config reload did it. */
  private closedBecause?: string;
  readonly forwarder = new RawForwarder();
  private connecting?: Promise<Client>;
  /** The transport of a connection attempt under way: closing closes it too. */
  private attempt?: Transport;
  private readonly handshake: UpstreamHandshake;
  private readonly reconnects: ReconnectSchedule;
  private readonly stderr: StderrTail;
  /** The client capabilities the connection offers the server (sorted names): a server may list more tools for more. */
  capabilitySet?: string;
  /** What the last attempt said while the server waits for a login (state needs_login). */
  loginError?: ToolError;

  constructor(
    readonly options: UpstreamOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    if (options.problems) {
      this.state = 'down';
      this.lastError = options.problemsHint ? options.problems.join('; ') : `its config entry cannot be used (${options.problems.join('; ')})`;
    }
    this.stderr = new StderrTail(options);
    this.reconnects = new ReconnectSchedule(options.backoff ?? reconnectPolicy(options.config.reconnect), options.name, options.logger);
    this.handshake = new UpstreamHandshake({
      options,
      forwarder: this.forwarder,
      timeout: () => connectTimeout(options),
      setUp: (client, offered) => hooks.setUp(client, offered),
      stderrLine: (line) => this.stderr.add(line),
      attempt: (transport) => (this.attempt = transport),
      closed: () => this.isClosed(),
      isAuthFailure: (error) => this.authFailure(error) !== undefined,
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** The server's last stderr lines, masked (./stderr-tail.ts). */
  get stderrTail(): readonly string[] {
    return this.stderr.lines;
  }

  /** Reconnect attempts spent in this round. */
  get attempts(): number {
    return this.reconnects.attempts;
  }

  /** How long connecting and each request may take (a one-off look's shorter limit, else timeout_ms). */
  get timeoutMs(): number {
    return connectTimeout(this.options).ms;
  }

  /** The ceiling of a tool call that reports progress (each report restarts timeoutMs). */
  get maxTotalMs(): number {
    return this.options.config.max_total_ms ?? SERVER_MAX_TOTAL_MS;
  }

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
    if (this.state === 'down' && this.reconnects.mayRetryNow && !this.options.problems) {
      this.reconnects.cancel();
      const reconnected = this.connect();
      void reconnected.then((client) => this.hooks.reconnected(client)).catch(() => undefined);
      return reconnected;
    }
    if (this.state === 'down' || this.state === 'closed') throw this.downNow();
    return this.connect();
  }

  /** The UNAVAILABLE error for a call while down; after the attempts ran out, a call also starts a new round. */
  downNow(): ToolError {
    if (this.state === 'down' && !this.options.problems && this.reconnects.startsNewRound()) this.scheduleReconnect();
    return this.unavailable();
  }

  /**
   * A listing, or a call of a name this server's tools would have, found it down after its
   * attempts ran out: a new round starts (true), a cool-down after the last (./reconnect-schedule.ts).
   * The caller makes the round's first attempt at once, by connecting; a failure schedules the rest.
   */
  revives(): boolean {
    return this.state === 'down' && !this.options.problems && this.reconnects.revives();
  }

  unavailable(): ToolError {
    return unavailableError(this.subject());
  }

  private subject(): FailureSubject {
    const { config, problems, problemsHint } = this.options;
    const reached = config.command !== undefined ? [config.command, ...(config.args ?? [])].join(' ') : `curl -i ${config.url}`;
    return {
      name: this.name,
      state: this.state,
      lastError: this.lastError,
      stderrTail: this.stderrTail,
      problems,
      ...(problemsHint ? { problemsHint } : {}),
      reconnects: this.reconnects.enabled,
      reached,
      ...(this.closedBecause ? { closedBecause: this.closedBecause } : {}),
    };
  }

  /** The error a failure becomes when it means credentials (../auth/upstream-errors.ts); undefined otherwise. */
  authFailure(error: unknown): ToolError | undefined {
    const oauth = this.handshake.oauthInUse;
    return upstreamAuthFailure(error, { name: this.name, config: this.options.config, ...(oauth ? { oauth } : {}) });
  }

  /** Ends the connection for good; `because` says why to calls still waiting (else: mcpkit is shutting down). */
  async close(because?: string): Promise<void> {
    this.state = 'closed';
    if (because) this.closedBecause = because;
    this.forwarder.failAll(because ?? 'mcpkit is shutting down');
    this.reconnects.cancel();
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
    this.reconnects.reset();
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
    const offered = offeredCapabilities(this.options);
    this.capabilitySet = Object.keys(offered).sort().join(',');
    let client: Client;
    try {
      client = await this.handshake.open(offered);
    } catch (error) {
      this.handshake.forgetEra();
      throw this.failed(error);
    }
    if (this.isClosed()) {
      // Closed while it connected (the attempt was past the point where closing could stop it).
      await client.close().catch(() => undefined);
      throw this.unavailable();
    }
    this.client = client;
    this.state = 'ready';
    this.lastError = undefined;
    this.reconnects.connected();
    client.onclose = () => this.closedUnexpectedly(client);
    await this.hooks.connected(client);
    this.options.woke?.();
    this.options.logger.debug(`${this.name}: connected`);
    return client;
  }

  /** The state a failed attempt leaves, and the error its caller gets. */
  private failed(error: unknown): ToolError {
    this.lastError = (error as Error).message;
    if (this.isClosed()) return this.unavailable();
    const auth = this.authFailure(error);
    if (auth) {
      // Retrying cannot help until someone logs in; the next call tries again (the login may be done by then).
      this.state = 'needs_login';
      this.lastError = `${auth.message} ${auth.hint ?? ''}`.trim();
      this.loginError = auth;
      return auth;
    }
    this.state = 'down';
    this.scheduleReconnect();
    if (error instanceof ConnectTimeout) return connectTimeoutError(this.subject(), error.over, error.ms);
    const pinned = this.options.config.protocol;
    if (pinned && pinned !== 'auto' && refusedEra(error)) return eraMismatchError(this.subject(), pinned, (error as Error).message);
    return this.unavailable();
  }

  private closedUnexpectedly(client: Client): void {
    if (this.client !== client || this.state === 'closed') return;
    this.client = undefined;
    this.forwarder.detach();
    this.state = 'down';
    this.lastError = 'the connection closed (the server exited or crashed)';
    this.forwarder.failAll(this.lastError);
    this.reconnects.lost();
    this.options.logger.warn(`${this.name}: ${this.lastError}`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.reconnects.schedule(() => {
      if (this.state !== 'down') return;
      this.connect()
        .then((client) => this.hooks.reconnected(client))
        .catch(() => undefined); // open() already scheduled the next attempt
    });
  }
}
