import type { Client, ClientCapabilities, RequestId, Tool } from '@modelcontextprotocol/client';
import type { UpstreamOAuth } from '../../auth/upstream-oauth.js';
import type { OwnFiles } from '../../config/files/own-files.js';
import { SERVER_TIMEOUT_MS } from '../../config/schema/defaults.js';
import type { ServerConfig } from '../../config/schema/schema.js';
import type { BackoffPolicy } from '../../core/backoff.js';
import type { Logger } from '../../core/logger.js';
import type { ConnectLimit } from '../../tool/server-opener.js';
import type { ClientEra } from '../eras/era.js';

/**
 * The one downstream client a connection belongs to, when it has one (see ProxyHub: a client that
 * declares sampling, elicitation or roots gets connections of its own). The upstream is offered
 * exactly those of the three capabilities the client declared, and its requests go to that client.
 */
export interface DownstreamRelay {
  readonly capabilities: ClientCapabilities;
  /**
   * The client is remote (HTTP): its roots name folders on its own machine, so they reach only a
   * server whose entry says `roots: forward` (relayedCapabilities).
   */
  readonly remote?: boolean;
  /** A server-to-client request, sent on; `related` is a call of the client's in flight to this server. */
  request(method: string, params: unknown, related: RequestId | undefined): Promise<Record<string, unknown>>;
}

export interface UpstreamOptions {
  name: string;
  config: ServerConfig;
  logger: Logger;
  version: string;
  /** The environment a stdio server starts with, before its own `env`; also where stored OAuth logins are found. */
  env: Readonly<Record<string, string | undefined>>;
  /** Variables a stdio server is not given even where inherit_env passes the rest (config/server-env.ts); none when absent. */
  withheldEnv?: () => ReadonlySet<string>;
  /** mcpkit's own files and folders, which a box never shows (proxy/sandbox/launch-plan.ts). */
  ownFiles?: () => OwnFiles;
  /** Written to our stderr, prefixed with the server name. */
  stderr?: (line: string) => void;
  backoff?: BackoffPolicy;
  downstream?: DownstreamRelay;
  /** The era of the clients this connection serves (serve): a server that speaks both is spoken to in theirs. */
  clientEra?: ClientEra;
  /** The config entry was set aside for these problems: the server is down from the start and never started. */
  problems?: readonly string[];
  /** What to do about `problems`, when it is not fixing the config entry (a client without its own credentials). */
  problemsHint?: string;
  /** The stored OAuth login to use (LoginStore key): a client's own (`SERVER@CLIENT`); the server's name by default. */
  login?: string;
  /** What a bridged call's request state starts with: this process among replicas (InputBridge). */
  requestStateTag?: () => string | undefined;
  /** Told once when connecting is slow, so a terminal can say what it waits for. */
  waiting?: (message: string) => void;
  /** OAuth for a remote server; by default the stored login of a server with `auth: oauth`. */
  oauth?: UpstreamOAuth;
  /**
   * The server's tools as an earlier process listed them (a terminal command's cache): what the
   * catalog is made from until this process lists them itself. Never what a call trusts.
   */
  seedTools?: Tool[];
  /** Told each listing of the server's tools (the cache a later command seeds from). */
  listed?: (tools: Tool[]) => void;
  /** Told each time a connection is made (a client's own connections waking: serve's cap on them). */
  woke?: () => void;
  /** A one-off look that waits less than timeout_ms (a name check), and why. */
  limit?: ConnectLimit;
}

/** What the owner of a connection does at its turning points. */
export interface ConnectionHooks {
  /** A new SDK client, before it connects: its request and notification handlers. */
  setUp(client: Client, offered: ClientCapabilities): void;
  /** Connected (first time or again). */
  connected(client: Client): Promise<void>;
  /** Connected again by the backoff timer, not by a call. */
  reconnected(client: Client): Promise<void>;
}

/**
 * How long connecting (and each request) may take, and the setting that says so: the server's
 * timeout_ms, or a one-off look's own limit where that is shorter, which it then replaces. Pure.
 */
export function connectTimeout(options: Pick<UpstreamOptions, 'name' | 'config' | 'limit'>): { ms: number; why: string } {
  const { limit, config, name } = options;
  const configured = config.timeout_ms ?? SERVER_TIMEOUT_MS;
  return limit && limit.ms < configured ? { ms: limit.ms, why: limit.why } : { ms: configured, why: `mcp_servers.${name}.timeout_ms` };
}
