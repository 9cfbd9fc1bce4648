import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { INTERNAL_ERROR, type Client, type PriorDiscovery, type SSEClientTransportOptions, type Transport } from '@modelcontextprotocol/client';
import type { UpstreamOAuth } from '../../auth/upstream-oauth.js';
import type { ServerConfig } from '../../config/schema/schema.js';
import type { Logger } from '../../core/logger.js';
import { replaceStdioReadBuffer } from '../../core/sdk-seams.js';
import { refusesLegacy } from '../eras/era.js';
import { BoundedReadBuffer } from './bounded-read-buffer.js';
import { handshakeDeadline, sdkBackstopMs } from './handshake-deadline.js';
import { upstreamFetch } from './upstream-fetch.js';
import { serverEnvironment } from '../../config/server-env.js';
import { ownPathsOnDisk, type OwnFiles } from '../../config/files/own-files.js';
import { launchPlan } from '../sandbox/launch-plan.js';
import { hostFacts } from '../sandbox/host-facts.js';
import { ToolError } from '../../core/errors.js';
import { cacheDir, SERVER_MAX_MESSAGE_BYTES } from '../../config/schema/defaults.js';

/** A server that accepted the connection (or started) but did not complete the handshake in time. */
export class ConnectTimeout extends Error {
  constructor(
    readonly over: string,
    readonly ms: number,
  ) {
    super(`no answer over ${over} within ${ms} ms`);
  }
}

/** How long a connection may take before the wait is announced (npx fetching a package takes longer). */
const SLOW_START_MS = 2000;

export interface TransportChoice {
  name: string;
  config: ServerConfig;
  /** mcpkit's environment, of which a stdio server gets what config/server-env.ts says. */
  env: Readonly<Record<string, string | undefined>>;
  /** The variables the rest of the config names: never this server's unless its entry names them. */
  withheldEnv: ReadonlySet<string>;
  /** mcpkit's own files and folders: a box never shows them. */
  ownFiles?: () => OwnFiles;
  timeoutMs: number;
  /** Where timeoutMs comes from, in the waiting notice: the config key, or a one-off look's own limit. */
  timeoutWhy: string;
  logger: Logger;
  oauth?: UpstreamOAuth;
  /** The server's era from an earlier connection: no server/discover probe this time. */
  prior?: PriorDiscovery;
  /**
   * Probe a stdio server's era on its own process (server/discover, then initialize on the same
   * pipe when it is a 2025 server), not on a second, throw-away one: a server started by a slow
   * launcher (npx -y) is started once. A server that exits on a request before initialize closes
   * during the probe; the caller then starts it again with the 2025 handshake (./upstream-handshake.ts).
   */
  probeInPlace?: boolean;
  /** Each line the server writes to stderr. */
  stderrLine(line: string): void;
  /** Told once when connecting takes longer than SLOW_START_MS, so a terminal can say what it waits for. */
  waiting?: (message: string) => void;
  /** The transport of the attempt under way (undefined once it ended), so that closing the upstream can close it. */
  attempt(transport: Transport | undefined): void;
  closed(): boolean;
  /** True for an error that means credentials: no other transport is tried after it. */
  isAuthFailure(error: unknown): boolean;
  /** Told when the answer to the SDK's era probe (server/discover) was over max_message_bytes (`key`), and dropped. */
  probeTooLarge?: (dropped: { bytes: number; limit: number; key: string }) => void;
}

/**
 * Connects the client to the server over the transport its entry asks for: stdio for a command;
 * for a URL, streamable HTTP, falling back to SSE (`transport: auto`, the default) when that
 * fails for a reason other than credentials.
 */
export async function connectTransport(client: Client, choice: TransportChoice): Promise<Transport> {
  const { config } = choice;
  if (config.command !== undefined) {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    // Not mcpkit's whole environment: the base, what inherit_env names, and the entry's own env.
    const env = serverEnvironment(choice.env, config, choice.withheldEnv);
    // In a box when the entry asks for one (never unboxed instead), else in a session of its own.
    const withheld = config.sandbox && choice.ownFiles ? { withheld: ownPathsOnDisk(choice.ownFiles()) } : {};
    const plan = launchPlan({ ...config, command: config.command, ...boxNpmCache(choice), ...withheld }, hostFacts(choice.env));
    if (!plan.ok) {
      // The hint is part of the message: /health and every refused call quote the message only.
      throw new ToolError('UNAVAILABLE', `Server "${choice.name}" is not started: ${plan.reason}. ${plan.hint}`, {
        details: { server: choice.name },
        hint: plan.hint,
      });
    }
    // The SDK probes a subclass of its stdio transport in place, its base class on a sibling process.
    const Stdio = choice.probeInPlace ? InPlaceProbe(StdioClientTransport) : StdioClientTransport;
    const transport = new Stdio({ command: plan.command, args: plan.args, env, cwd: config.cwd, stderr: 'pipe' });
    if (plan.ends === 'group') endGroupWithTransport(transport);
    boundMessages(transport, choice);
    captureLines(transport.stderr, choice.stderrLine);
    return bounded(client, transport, 'stdio', choice);
  }
  const url = new URL(config.url!);
  const kind = config.transport ?? 'auto';
  const oauth = choice.oauth;
  // The last failure to reach the server, for the handshake's deadline (./handshake-deadline.ts).
  let unreached: Error | undefined;
  const http = {
    requestInit: { headers: config.headers ?? {} },
    ...(oauth?.provider ? { authProvider: oauth.provider } : {}),
    fetch: upstreamFetch(oauth?.fetch ?? ((input, init) => fetch(input, init)), url, (error) => (unreached = error)),
  };
  const failedMeanwhile = (): Error | undefined => unreached;
  if (kind === 'sse') return connectSse(client, url, http, choice, failedMeanwhile);
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  try {
    return await bounded(client, new StreamableHTTPClientTransport(url, http), 'streamable HTTP', choice, failedMeanwhile);
  } catch (error) {
    // A server that wants a login, or that speaks only 2026-07-28, said so over streamable HTTP: SSE would not help.
    if (kind === 'http' || choice.closed() || choice.isAuthFailure(error) || refusesLegacy(error)) throw error;
    choice.logger.info(`${choice.name}: streamable HTTP failed (${(error as Error).message}); trying SSE`);
    try {
      return await connectSse(client, url, http, choice, failedMeanwhile);
    } catch (sseError) {
      if (choice.isAuthFailure(sseError) || !(error instanceof Error)) throw sseError;
      // What a person reads first is what the current transport said; the old one's answer follows.
      error.message = `${error.message} (the SSE fallback failed too: ${(sseError as Error).message})`;
      throw error;
    }
  }
}

/**
 * The SDK's stdio transport as a class of its own: the SDK negotiates a server's era on a disposable
 * sibling process only for its exact base class (it clones it from its spawn parameters), and in
 * place for anything else (modelcontextprotocol/typescript-sdk client/src/client/negotiate: readStdioServerParams).
 */
type StdioTransportClass = typeof import('@modelcontextprotocol/client/stdio').StdioClientTransport;
let inPlace: StdioTransportClass | undefined;
function InPlaceProbe(Base: StdioTransportClass): StdioTransportClass {
  return (inPlace ??= class InPlaceProbeStdio extends Base {});
}

/**
 * A boxed server's own npm cache (launch-plan.ts LaunchEntry.npmCache), made on first use:
 * $XDG_CACHE_HOME/mcpkit/boxes/NAME/npm, private to this user.
 */
function boxNpmCache(choice: TransportChoice): { npmCache?: string } {
  if (!choice.config.sandbox) return {};
  const folder = join(cacheDir(choice.env, choice.env.HOME ?? homedir()), 'boxes', choice.name, 'npm');
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return { npmCache: folder };
  } catch {
    return {}; // the user's cache, read-only, as without one
  }
}

/**
 * Ends the server's whole process group once the SDK closed its transport: the SDK ends the
 * process it started (stdin, then SIGTERM, then SIGKILL), not what that process started (npm exec
 * starts node), which would otherwise live on with no parent. The group is the server's own
 * (launch-plan.ts: setsid, or bubblewrap's new session).
 */
function endGroupWithTransport(transport: Transport & { readonly pid: number | null }): void {
  const close = transport.close.bind(transport);
  transport.close = async () => {
    const pid = transport.pid;
    await close();
    if (pid) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* the group is gone already */
      }
    }
  };
}

/**
 * Puts a BoundedReadBuffer in place of the SDK's (core/sdk-seams.ts replaceStdioReadBuffer): one
 * answer over the limit fails its own request instead of closing the connection under every call
 * in flight. Where the SDK changed, this is said, and the SDK's own limit applies.
 */
function boundMessages(transport: Transport, choice: TransportChoice): void {
  const limit = choice.config.max_message_bytes ?? SERVER_MAX_MESSAGE_BYTES;
  const where = `mcp_servers.${choice.name}.max_message_bytes`;
  const bounded = new BoundedReadBuffer(
    limit,
    ({ id, bytes }) => {
      choice.logger.warn(
        `${choice.name}: a message of ${bytes} bytes, over ${where} (${limit}), was dropped${id === undefined ? '' : `; request ${String(id)} fails with RESPONSE_TOO_LARGE`}`,
      );
      if (id === undefined) return undefined;
      // The SDK's own id for its probe: without this, a dropped answer reads as a server that offers no 2026-07-28.
      if (typeof id === 'string' && id.startsWith('server-discover-probe-')) choice.probeTooLarge?.({ bytes, limit, key: where });
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: INTERNAL_ERROR,
          message: `The answer of server "${choice.name}" was ${bytes} bytes, more than ${where} (${limit}); it was dropped. Ask for less, or raise ${where}.`,
          data: { code: 'RESPONSE_TOO_LARGE', server: choice.name, bytes, limit },
        },
      };
    },
    ({ id, reason }) => {
      choice.logger.warn(`${choice.name}: answered request ${String(id)} with a message that is not JSON-RPC (${reason.split('\n', 1)[0]}); the request fails`);
      return {
        jsonrpc: '2.0',
        id,
        error: {
          code: INTERNAL_ERROR,
          message: `Server "${choice.name}" sent a malformed answer: it is not a JSON-RPC response.`,
          data: { code: 'UPSTREAM_ERROR', server: choice.name },
        },
      };
    },
  );
  if (!replaceStdioReadBuffer(transport, bounded)) {
    choice.logger.warn(`${choice.name}: cannot bound its messages one by one (the SDK changed); one over ${limit} bytes closes the connection`);
  }
}

async function connectSse(
  client: Client,
  url: URL,
  options: SSEClientTransportOptions,
  choice: TransportChoice,
  failedMeanwhile: () => Error | undefined,
): Promise<Transport> {
  const { SSEClientTransport } = await import('@modelcontextprotocol/client');
  return bounded(client, new SSEClientTransport(url, options), 'SSE', choice, failedMeanwhile);
}

/**
 * Connects over one transport within timeout_ms, handshake included: a server that accepts the
 * connection and never answers fails like one that refuses it, and the transport is closed
 * either way (an SSE stream that is left open reconnects on its own, forever).
 */
async function bounded(
  client: Client,
  transport: Transport,
  what: string,
  choice: TransportChoice,
  /** A failure to reach the server, read before the deadline's decision (HTTP only: a process has none). */
  failedMeanwhile: () => Error | undefined = () => undefined,
): Promise<Transport> {
  const { name, timeoutMs, timeoutWhy, waiting } = choice;
  choice.attempt(transport);
  // The SDK client starts the transport (spawns the server) a few awaits into connect(): an upstream
  // closed before that (Ctrl-C as a command starts) must not start it after, with nothing to end it.
  const start = transport.start.bind(transport);
  transport.start = () => (choice.closed() ? Promise.reject(new Error(`server ${name} was closed before it started`)) : start());
  const slow = waiting
    ? setTimeout(
        () => waiting(`waiting for server ${name} to answer over ${what} (gives up after ${Math.round(timeoutMs / 1000)} s, ${timeoutWhy})`),
        SLOW_START_MS,
      ).unref()
    : undefined;
  try {
    // Over HTTP the deadline decides, and the SDK's own timer is a backstop (./handshake-deadline.ts).
    const sdkTimeout = what === 'stdio' ? timeoutMs : sdkBackstopMs(timeoutMs);
    await handshakeDeadline(client.connect(transport, { timeout: sdkTimeout, ...(choice.prior ? { prior: choice.prior } : {}) }), timeoutMs, {
      timedOut: () => new ConnectTimeout(what, timeoutMs),
      failedMeanwhile,
    });
    return transport;
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(slow);
    choice.attempt(undefined);
  }
}

function captureLines(stream: Stream | null, line: (text: string) => void): void {
  if (!stream) return;
  let partial = '';
  stream.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) line(text);
  });
}
