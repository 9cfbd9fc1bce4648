import type { ConditionSet } from '../conditions/rules.js';
import type { Admission } from '../core/limits.js';
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/server';
import type { ChalkInstance } from 'chalk';
import type { ConfigSource } from '../config/locate.js';
import type { McpkitConfig, ServerConfig } from '../config/schema/schema.js';
import type { OwnFiles } from '../config/files/own-files.js';
import type { Logger } from '../core/logger.js';

/** Who is asking: a person at a terminal, or an MCP client (`serve`, `filter run`). */
export type Surface = 'cli' | 'mcp';

/**
 * What this process may offer, decided once by the composition root (src/app) and applied in one
 * place (./policy.ts) to mcpkit's own tools and, through views, to upstream tools.
 */
export interface Policy {
  /** `serve --read-only`: no tool with `readOnlyHint: false` is listed or callable. */
  readonly readOnly: boolean;
  /** mcpkit's own groups to serve; all when absent. */
  readonly groups?: readonly string[];
  /** false: no tool that writes the config or starts processes (ToolDefinition.hostAccess); default true. */
  readonly hostTools?: boolean;
  /** `serve --exposure`: how every view lists its tools, whatever the config says. */
  readonly exposure?: 'auto' | 'direct' | 'search' | 'code';
  /** `serve --token-budget`: the budget of exposure auto for every view. */
  readonly tokenBudget?: number;
}

export const DEFAULT_POLICY: Policy = Object.freeze({ readOnly: false });

/**
 * State that belongs to one client: one MCP session (a stdio connection, or one HTTP session), or
 * one terminal command. Nothing here is shared between two clients of one `serve --http`.
 */
export class SessionState {
  /** Registry tenants switched by switch_tenant_id over MCP, by registry name ('' clears). */
  readonly tenants = new Map<string, string>();
}

/** What `view_tools` needs of a served view; the proxy's hub is one. */
export interface OpenedView {
  readonly view: { readonly name?: string; readonly exposure: 'auto' | 'direct' | 'search' | 'code' };
  /** One call of a tool by its published name, through the call port as any call of the view (ViewCallPort). */
  call(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: { signal?: AbortSignal | undefined },
  ): Promise<{ found: boolean; similar?: string[]; result?: { content?: unknown; structuredContent?: unknown; isError?: boolean } }>;
  /** What a code-mode script reaches of the view (code/declarations.ts), with the view's code limits. */
  codeTools(): Promise<{
    declared: readonly { group: string; name: string; published: string; description?: string; inputSchema?: unknown; outputSchema?: unknown }[];
    /** How large each tool's declaration may be (the view's code settings). */
    declarationLimits: { maxDeclarationBytes: number; maxAnswerBytes: number };
    tree: Readonly<Record<string, Readonly<Record<string, string>>>>;
    publishedFor(group: string, name: string): string;
  }>;
  codeLimits(): { limits: { timeoutMs: number; memoryMb: number; maxCalls: number; maxParallel: number; maxOutputBytes: number }; settings: string };
  list(): Promise<Tool[]>;
  /** How tools/list is made and what it costs (exposure auto: whether it switched to search). */
  exposurePlan(): Promise<ExposureSummary>;
  catalogTools(): Promise<Tool[]>;
  status(): { name: string; state: string; error?: string }[];
  /** Tools tool pinning withholds (new, or changed since approval), by the name the view would publish. */
  withheldTools(): { name: string; server: string; tool: string; why: 'new' | 'changed' | 'tampered' }[];
  /** The servers' tools the view does not serve, with the rule that hides each (by the server's own name). */
  hiddenTools(): { server: string; tool: string; why: string }[];
}

/**
 * How a terminal's tool calls a view's tools: the call port every call enters, opened by the front
 * end that runs the tool (mcp/pipeline/terminal-calls.ts codeRunCalls) for one use of the view.
 */
export interface ViewCallPort {
  call: OpenedView['call'];
  close(): Promise<void>;
}

export interface ExposureSummary {
  /** What tools/list does now: every tool, or meta-tools plus the tools kept direct. */
  mode: 'direct' | 'search' | 'code';
  budget: number;
  catalog_tokens: number;
  list_tokens: number;
  /** Tools listed directly besides the meta-tools (all of them in direct mode). */
  direct: string[];
  /** Pins that name no tool of the view, with the closest names. */
  unknown_pins: { pin: string; similar: string[] }[];
}

/** A look that waits less than the server's timeout_ms (a check of tool names), and why: said in the waiting notice. */
export interface ConnectLimit {
  ms: number;
  why: string;
}

/** How a single look connects: with an OAuth handle, a shorter limit, or as the connection 2026 clients share does (offering elicitation and sampling). */
export interface OneOffOptions {
  oauth?: OAuthHandle;
  limit?: ConnectLimit;
  asModernClients?: boolean;
}

/** One server reached for a single look (server test, set-tools' name check, a login's probe). */
export interface OneOffServer {
  listTools(): Promise<Tool[]>;
  /** The MCP revision the connection speaks (once connected). */
  protocolVersion(): string | undefined;
  listPrompts(): Promise<Prompt[]>;
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplateType[]>;
  /** The client capabilities the connection offered, as pins record them ("" for none; once connected). */
  capabilitySet(): string | undefined;
}

/** The OAuth of one connection, as made by the auth domain (`storedOAuth`); opaque to tools. */
export interface OAuthHandle {
  lastChallenge(): unknown;
}

export interface ServerOpener {
  /**
   * Connects to one server of the config for a single look, never reconnecting, its stderr kept
   * out of the terminal; runs `use` and closes the connection whatever happens.
   */
  with<T>(name: string, config: ServerConfig, use: (server: OneOffServer) => Promise<T>, options?: OneOffOptions): Promise<T>;
  /** The tools a terminal command last saw the server list, without starting it (none known: undefined). */
  lastListing?(name: string, config: ServerConfig): Tool[] | undefined;
}

export interface ViewOpener {
  /** Opens a view (undefined: the default one) with upstream connections of its own, runs `use`, and closes them. */
  with<T>(view: string | undefined, use: (opened: OpenedView) => Promise<T>, options?: { quiet?: boolean }): Promise<T>;
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
  /** Set by the MCP front end when serve traces (OpenTelemetry): a child span per upstream request, and its traceparent for the upstream. */
  readonly trace?: UpstreamTrace;
  /** Set by the MCP front end for a 2026-07-28 request: what a proxied call passes on to the server. */
  readonly modern?: ModernRequest;
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

/**
 * Who calls, for the audit log, and what a named client of serve (serve.clients) may call: absent
 * parts mean no rule and no limit. The proxy applies it to listings, calls, the meta-tools and
 * composite steps alike.
 */
export interface ToolAccess {
  /** A configured client's name, else how it was let in: `token:serve`, `token:<hash>`, `oauth:<subject>`, `anonymous`. */
  readonly client: string;
  /** `client` is the name of a configured client (else how it was let in). */
  readonly named?: boolean;
  /** Whether it may call a tool, by its published name and whether it only reads; absent: anything served. */
  readonly allows?: (tool: { name: string; readOnly: boolean }) => boolean;
  /** The client is read-only: mcpkit's own writers that enforce read-only run with the read-only policy. */
  readonly readOnly?: boolean;
  /**
   * A place for one call under its rate and max_concurrent, or why not; absent: no limits. A
   * promise when the limits are kept in the shared store (serve.store), which may also reject
   * (UNAVAILABLE: the call is not run without its limits).
   */
  readonly admit?: () => Admission | Promise<Admission>;
  /** Its conditions on arguments (serve.clients.NAME.conditions), compiled for this config generation. */
  readonly conditions?: ConditionSet;
  /** What its conditions see as `claims`: the claims its entry recognises it by (serve.clients.NAME.claims). */
  readonly claims?: Readonly<Record<string, unknown>>;
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

/** A request's trace (audit/tracing.ts), as the proxy sees it: one span per upstream request. */
export interface UpstreamTrace {
  child(method: string, name: string, server: string): { traceparent: string; end(failure?: string): void };
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

/**
 * The parts of a 2026-07-28 request that belong to the client, not to mcpkit: the envelope keys a
 * server decides by (the client's capabilities, log level, trace context), the parameters it
 * mirrored into headers, and a retry's answers to an input_required result with the server's
 * opaque state, passed back byte for byte.
 */
export interface ModernRequest {
  readonly meta: Readonly<Record<string, unknown>>;
  /** The client's `Mcp-Param-*` headers (SEP-2243): checked by serve, and made again from the arguments sent where the server's tool definition is known. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly inputResponses?: unknown;
  readonly requestState?: string;
  /** The request came over HTTP: the client's roots reach only servers whose entry says `roots: forward`. */
  readonly remote?: boolean;
  /**
   * The request's signal is the whole call's, not only this round's (a task's, which tasks/cancel
   * aborts): a call bridged to a 2025 server is stopped by it even while it waits for the client's answers.
   */
  readonly lasting?: boolean;
}
