import type { Tool } from '@modelcontextprotocol/server';

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

export interface ViewOpener {
  /** Opens a view (undefined: the default one) with upstream connections of its own, runs `use`, and closes them. */
  with<T>(view: string | undefined, use: (opened: OpenedView) => Promise<T>, options?: { quiet?: boolean }): Promise<T>;
}
