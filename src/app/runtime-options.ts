import type { Logger } from '../core/logger.js';
import type { ConfigWithSource } from '../config/load.js';
import type { ClientEra } from '../proxy/eras/era.js';
import type { DownstreamRelay } from '../proxy/upstream/upstream.js';
import type { ResolvedView } from '../proxy/catalog/view.js';
import type { ProxyHub } from '../proxy/hub.js';
import type { Policy, SessionState, Surface, ToolContext, ViewCallPort } from '../tool/context.js';

/** What a front end tells the runtime it builds (./runtime.ts), and what it asks of it. */
export interface RuntimeOptions {
  configFlag?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  surface: Surface;
  /** Variables of the environment that are mcpkit's own secrets (serve --token-env): no server process is given them. */
  secretVariables?: readonly string[];
  /** The policy to start with: a front end that decides it from the config reads the config first (`config`); serve decides it anew on each reload (`followConfig`). */
  policy?: Policy;
  /** The config, when the front end has read it already (serve decides its policy from it). */
  config?: Promise<ConfigWithSource>;
  /** A long-running process (serve): tools get a cache that lives as long as it, and upstreams reconnect. */
  longLived?: boolean;
  /**
   * The daemon: a tool's look at a view of the config (`withHub`: call, tools, view tools) uses
   * the view's shared hub and leaves it open, so the next command finds its servers connected.
   */
  warm?: boolean;
  logger?: Logger;
  /** Where the servers' stderr goes, each line prefixed with its server's name (this process's stderr when absent). */
  serverStderr?: (text: string) => void;
  /** mcpkit's version, sent to upstream servers in initialize; read from package.json when absent. */
  version?: string;
  /** Where a long wait is announced (ToolContext.waiting, and a server slow to answer); the log at info level when absent. */
  waiting?: (message: string, kind?: WaitKind) => void;
  /** serve's audit log as --audit-log names it (resolved), one of mcpkit's own files (config/files/own-files.ts). */
  auditLog?: string;
  /** Where what a config reload changed is said (serve: stderr); the log at info level when absent. */
  announce?: (line: string) => void;
  /**
   * serve --http: a server with per_client is reached only with a named client's own credentials
   * (config/schema/client-credentials.ts); over stdio the one local user reaches it with its own entry.
   */
  perClient?: boolean;
}

/** A view of the config by name (undefined: the default view), or one a front end made (`filter run`). */
export type ViewTarget = string | undefined | ResolvedView;

export interface OpenHubOptions {
  /** The hub `serve` keeps for a view of the config: made once, over the connections every view shares. */
  shared?: boolean;
  /** One client's own connections, which relay what the servers ask (sampling, elicitation, roots) to it. */
  downstream?: DownstreamRelay;
  /** Upstream stderr stays out of the terminal unless MCPKIT_LOG_LEVEL=debug. */
  quiet?: boolean;
  listWaitMs?: number;
  /** The era of the clients the hub serves (serve): each era has its own shared connections (see proxy/eras/era.ts). */
  era?: ClientEra;
  /** Told when the hub closes (a client's own hub leaves OwnHubs). */
  onClose?: () => void;
  /** Told each time one of the hub's upstreams connects (a client's own hub waking: OwnHubs). */
  woke?: () => void;
  /** The named client whose own credentials the hub's connections are made with (read anew for each connection made). */
  client?: string;
}

export interface CallScope {
  session?: SessionState;
  /** The tool may create the config file (ToolDefinition.createsConfig): a missing named file is the defaults. */
  createsConfig?: boolean;
  signal?: AbortSignal;
  requestId?: string | number;
  progress?: ToolContext['progress'];
  emit?: ToolContext['emit'];
  /** The daemon: where the command it works for runs, and its environment (the runtime's own otherwise). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How the tool's calls of a view's tools enter the call port (a terminal's: mcp/pipeline/terminal-calls.ts); absent, they are refused. */
  viewCalls?: (hub: ProxyHub) => Promise<ViewCallPort>;
}

/**
 * What a wait is, where the front end treats it apart: `slow-server`, a server slow to answer,
 * which a terminal says to a person only (cli/terminal/output.ts); every other wait is said wherever it goes.
 */
export type WaitKind = 'slow-server';
