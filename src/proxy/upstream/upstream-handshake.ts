import { Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ClientCapabilities, PriorDiscovery, Transport } from '@modelcontextprotocol/client';
import type { UpstreamOAuth } from '../../auth/upstream-oauth.js';
import type { ProtocolChoice } from '../../config/schema/defaults.js';
import { eraPlan, refusesLegacy, verdictOf, versionNegotiation } from '../eras/era.js';
import type { RawForwarder } from './raw-forwarder.js';
import type { ConnectionHooks, UpstreamOptions } from './upstream-options.js';
import { sdkBackstopMs } from './handshake-deadline.js';
import { connectTransport } from './upstream-transport.js';

/**
 * One connection attempt's set-up: the OAuth it carries, the era it speaks (probed, pinned, or the
 * 2025 handshake first), the SDK client over its transport (./upstream-transport.ts). It keeps what
 * an attempt learnt of the server's era for the next one, so a reconnect skips the probe. Apart from
 * ./upstream-connection.ts, which owns the states and the reconnects: this part is asked for a
 * connected client, gives one or throws what went wrong, and never changes the connection's state.
 */

/** What the set-up needs of the connection it works for. */
export interface HandshakeHost extends Pick<ConnectionHooks, 'setUp'> {
  readonly options: UpstreamOptions;
  readonly forwarder: RawForwarder;
  /** How long connecting may take, and the setting that says so. */
  timeout(): { ms: number; why: string };
  stderrLine(line: string): void;
  /** The transport of the attempt under way (undefined once it is over): closing the connection closes it. */
  attempt(transport: Transport | undefined): void;
  /** Whether the connection was closed meanwhile. */
  closed(): boolean;
  isAuthFailure(error: unknown): boolean;
}

export class UpstreamHandshake {
  /** The OAuth of the last attempt, what its credentials failures are judged by. */
  oauthInUse?: UpstreamOAuth;
  /** The server's era as the last connection found it (protocol: auto), so that reconnecting skips the probe. */
  private verdict?: PriorDiscovery;
  /** The server refused the 2025 handshake of a 2025 client's connection: it speaks 2026-07-28 only. */
  private modernOnly = false;

  constructor(private readonly host: HandshakeHost) {}

  /** A client connected to the server, in the era its entry and what earlier attempts learnt say. */
  async open(offered: ClientCapabilities): Promise<Client> {
    const { config, clientEra } = this.host.options;
    this.oauthInUse = await this.oauth();
    const plan = eraPlan(config.protocol ?? 'auto', clientEra, config.command !== undefined);
    if (plan === 'auto' && config.command !== undefined && !this.verdict) return this.probeStdio(offered);
    if (plan !== 'legacy-first') return this.connectAs(plan, offered);
    if (this.modernOnly) return this.connectAs('2026-07-28', offered);
    try {
      return await this.connectAs('2025-11-25', offered);
    } catch (error) {
      // A 2025 client's connection to a server that speaks only 2026-07-28: the bridge's side.
      if (this.host.closed() || !refusesLegacy(error)) throw error;
      this.modernOnly = true;
      return this.connectAs('2026-07-28', offered);
    }
  }

  /** An attempt failed: a stale verdict (the server changed era) must not outlive the failure it may have caused. */
  forgetEra(): void {
    this.verdict = undefined;
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
      if (this.host.closed() || !closedDuringProbe(error)) throw error;
      this.host.options.logger.debug(`${this.host.options.name}: it closed during the server/discover probe; starting it again with the 2025-11-25 handshake`);
      const client = await this.connectAs('2025-11-25', offered);
      this.verdict = { kind: 'legacy' };
      return client;
    }
  }

  /** A new SDK client speaking `choice`, connected (closed again if that fails). */
  private async connectAs(choice: ProtocolChoice, offered: ClientCapabilities, how: { probeInPlace?: boolean } = {}): Promise<Client> {
    const { options } = this.host;
    const timeout = this.host.timeout();
    const stdio = options.config.command !== undefined;
    // Over HTTP the probe's timer is the SDK's backstop: mcpkit's deadline decides (./handshake-deadline.ts).
    const probeMs = stdio ? timeout.ms : sdkBackstopMs(timeout.ms);
    const client = new Client(
      { name: 'mcpkit', version: options.version },
      { capabilities: offered, versionNegotiation: versionNegotiation(choice, stdio, probeMs) },
    );
    this.host.setUp(client, offered);
    let probeDropped: { bytes: number; limit: number; key: string } | undefined;
    try {
      const transport = await connectTransport(client, {
        name: options.name,
        config: options.config,
        env: options.env,
        withheldEnv: options.withheldEnv?.() ?? new Set(),
        ...(options.ownFiles ? { ownFiles: options.ownFiles } : {}),
        timeoutMs: timeout.ms,
        timeoutWhy: timeout.why,
        logger: options.logger,
        ...(this.oauthInUse ? { oauth: this.oauthInUse } : {}),
        ...(options.waiting ? { waiting: options.waiting } : {}),
        ...(choice === 'auto' && this.verdict ? { prior: this.verdict } : {}),
        // Pinned, a stdio server is probed on its own process too: the SDK's throw-away sibling only
        // keeps a 2025 server's process for the fallback, and a pin has none (a server that closes
        // during the probe fails the pin either way), so it cost a second start of every such server.
        ...(how.probeInPlace || choice === '2026-07-28' ? { probeInPlace: true } : {}),
        stderrLine: (line) => this.host.stderrLine(line),
        attempt: (transport) => this.host.attempt(transport),
        closed: () => this.host.closed(),
        isAuthFailure: (error) => this.host.isAuthFailure(error),
        probeTooLarge: (dropped) => (probeDropped = dropped),
      });
      this.host.forwarder.attach(transport, { modern: client.getProtocolEra() === 'modern' });
      if (choice === 'auto') this.verdict = verdictOf(client);
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      if (probeDropped && !this.host.closed()) {
        const { bytes, limit, key } = probeDropped;
        throw new Error(`its answer to server/discover was ${bytes} bytes, more than ${key} (${limit}), so its era could not be told; raise ${key}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** The OAuth of a remote server with `auth:`: the one given, else its stored login (loaded only then). */
  private async oauth(): Promise<UpstreamOAuth | undefined> {
    const { config, oauth, login, name, env } = this.host.options;
    if (oauth) return oauth;
    if (!config.auth || config.command !== undefined) return undefined;
    const { storedOAuth, loginStore } = await import('../../auth/upstream-oauth.js');
    return storedOAuth(login ?? name, config, { store: loginStore(env) });
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

/** Whether a failure is the server refusing the era it was spoken to in (the SDK's negotiation, or a 2025 handshake refused). */
export function refusedEra(error: unknown): boolean {
  return (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) || refusesLegacy(error);
}
