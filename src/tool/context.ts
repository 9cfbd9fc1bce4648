import type { ChalkInstance } from 'chalk';
import type { ConfigSource } from '../config/locate.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import type { OwnFiles } from '../config/files/own-files.js';
import type { Logger } from '../core/logger.js';
import type { Policy } from './process-policy.js';
import type { ServerOpener } from './server-opener.js';
import type { ToolAccess } from './tool-access.js';
import type { ViewOpener } from './view-opener.js';

// The parts of a tool's context that have files of their own, named here too for the many that
// import them with it (the proxy imports them from their own files: it has a call context of its own).
export { DEFAULT_POLICY, type Policy } from './process-policy.js';
export type { ConnectLimit, OAuthHandle, OneOffOptions, OneOffServer, ServerOpener } from './server-opener.js';
export type { ToolAccess } from './tool-access.js';
export type { ExposureSummary, OpenedView, ViewCallPort, ViewOpener } from './view-opener.js';

/** Who is asking: a person at a terminal, or an MCP client (`serve`, `filter run`). */
export type Surface = 'cli' | 'mcp';

/**
 * State that belongs to one client: one MCP session (a stdio connection, or one HTTP session), or
 * one terminal command. Nothing here is shared between two clients of one `serve --http`.
 */
export class SessionState {
  /** Registry tenants switched by switch_tenant_id over MCP, by registry name ('' clears). */
  readonly tenants = new Map<string, string>();
}

export interface ToolContext {
  /** The loaded, interpolated and validated config (defaults when no file exists). Loaded once, on first use. */
  config(): Promise<McpkitConfig>;
  /** Where the config lives (or would live) and which rule chose it. */
  readonly configLocation: ConfigSource;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly logger: Logger;
  /**
   * Says what a long wait is for (a registry retry, a server slow to start), so a person at a
   * terminal does not take it for a hang: stderr in a terminal, the log under serve.
   */
  waiting(message: string): void;
  /** The one switch between terminal and agent behaviour (truncation, secrets, where state is kept). */
  readonly surface: Surface;
  readonly policy: Policy;
  /** The calling client's own state. */
  readonly session: SessionState;
  /**
   * Caches that live as long as a long-running process (`serve`), keyed by their owner; absent in
   * one-shot terminal runs, where a cache would only cost time to build.
   */
  readonly cache?: Map<string, unknown>;
  /** mcpkit's own views, as `serve` would serve them. */
  readonly views: ViewOpener;
  /** One server of the config, for a single look. */
  readonly servers: ServerOpener;
  /** mcpkit's own tool groups and tool names, for checks of names a config gives (config validate). */
  readonly mcpkitNames?: () => Promise<{ groups: readonly string[]; tools: readonly string[] }>;
  now(): Date;
  readonly signal?: AbortSignal;
  /** The MCP request this call answers (server-to-client requests it causes relate to it). */
  readonly requestId?: string | number;
  /**
   * Set by the terminal (without --json) for tools with `renderItem`: items of a result printed
   * as they are found, so an unlimited search shows its first matches at once.
   */
  readonly emit?: (item: unknown) => void;
  /** Set while serve follows its config: called after the tool wrote the config, which is then served before the tool answers. */
  readonly configWritten?: () => Promise<void>;
  /** Set by the MCP front end when the client asked for progress (a progressToken). */
  readonly progress?: (update: { progress: number; total?: number; message?: string }) => void;
  /**
   * Set by the MCP front end: puts a question to the person at the client (elicitation) and says
   * whether they approved. `unavailable`: the client cannot ask. On a 2026-07-28 request it throws
   * `InputRequiredAnswer` the first time (the call's answer asks the client), and on the client's
   * retry with the person's answer returns it.
   */
  readonly askPerson?: (question: PersonQuestion) => Promise<'approved' | 'declined' | 'unavailable'>;
  /** Set by the MCP front end: who is calling (serve.clients) and what they may call. */
  readonly access?: ToolAccess;
  /** mcpkit's own files and folders (its config, pins, audit log, state, cache), which no root serves to agents. */
  readonly ownFiles?: () => OwnFiles;
}

/** What an agent asked for that needs a person: shown as it is, every line escaped. */
export interface PersonQuestion {
  /** One line: what is about to happen ("Add the stdio server "x" to the config"). */
  action: string;
  /** The exact command lines that would be run, one per line. */
  commands: readonly string[];
  /** The remote servers that would be connected to: each URL and header as it will be sent, one per line. */
  connects?: readonly string[];
}

/**
 * A 2026-07-28 call's answer that asks the client for input first (an input_required result with
 * an elicitation): thrown by `askPerson`, returned by the MCP front end as the call's result.
 */
export class InputRequiredAnswer extends Error {
  constructor(readonly result: Record<string, unknown>) {
    super('input required');
  }
}

/**
 * What a long-running process keeps under `key`, made on first use; undefined in one-shot runs,
 * which have no cache. The value is stored before `make` settles (a promise, when it is
 * asynchronous), so calls arriving together share one.
 */
export function perProcess<T>(ctx: Pick<ToolContext, 'cache'>, key: string, make: () => T): T | undefined {
  const cache = ctx.cache;
  if (!cache) return undefined;
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

export interface RenderUi {
  /** Colour helpers; plain strings when colour is off (NO_COLOR, not a TTY). */
  readonly color: ChalkInstance;
  table(rows: readonly Record<string, unknown>[], columns?: readonly string[]): string;
  /** A remark for the person (stderr), kept out of what the command prints, so `| jq` and `$(...)` stay clean. */
  note(text: string): void;
}
