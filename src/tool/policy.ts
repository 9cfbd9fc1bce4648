import type { McpkitConfig } from '../config/schema.js';
import type { AnyTool } from './define.js';
import type { Policy } from './context.js';

/**
 * The tools of mcpkit's own that a policy offers, as they are published: the groups chosen, the
 * tools available under this config, and under read-only no writer, except a writer that enforces
 * read-only itself, which is kept and published with `readOnlyHint: true`. The one place where
 * read-only mode decides what mcpkit's own tools are (upstream tools: `keepUnderReadOnly`). Pure.
 */
export function applyPolicy(tools: readonly AnyTool[], policy: Policy, config: McpkitConfig, env: NodeJS.ProcessEnv): AnyTool[] {
  const chosen = policy.groups ?? config.serve.groups;
  const groups = chosen ? new Set(chosen) : undefined;
  const out: AnyTool[] = [];
  for (const tool of tools) {
    if (groups && !groups.has(tool.group)) continue;
    if (policy.hostTools === false && tool.hostAccess) continue;
    if (tool.available && !tool.available(config, env)) continue;
    if (policy.readOnly && !tool.annotations.readOnlyHint) {
      if (!tool.enforcesReadOnly) continue;
      out.push(asReadOnly(tool));
      continue;
    }
    out.push(tool);
  }
  return out;
}

const readOnlyCopies = new WeakMap<AnyTool, AnyTool>();

/** One copy per tool, so what is built from a tool once (its published shape) is built once here too. */
function asReadOnly(tool: AnyTool): AnyTool {
  let copy = readOnlyCopies.get(tool);
  if (!copy) {
    copy = { ...tool, annotations: { ...tool.annotations, readOnlyHint: true, destructiveHint: false } };
    readOnlyCopies.set(tool, copy);
  }
  return copy;
}

/**
 * Whether an upstream (or composite) tool stays in a read-only view: only when it says it is
 * read-only. MCP's default for a missing `readOnlyHint` is false, so silence means "may write".
 */
export function keepUnderReadOnly(annotations: { readOnlyHint?: boolean } | undefined): boolean {
  return annotations?.readOnlyHint === true;
}
