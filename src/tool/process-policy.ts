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
