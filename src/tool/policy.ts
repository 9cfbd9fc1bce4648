import type { McpkitConfig } from '../config/schema/schema.js';
import type { AnyTool } from './define.js';
import type { Policy } from './context.js';

/**
 * The tools of mcpkit's own that a policy offers, as they are published: the groups chosen, the
 * tools available under this config, and under read-only no writer, except a writer that enforces
 * read-only itself, which is kept and published with `readOnlyHint: true`; a featured tool whose
 * `featuredIf` does not hold is published without its place among them. The one place where
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
    let published = tool;
    if (policy.readOnly && !tool.annotations.readOnlyHint) {
      if (!tool.enforcesReadOnly) continue;
      published = asReadOnly(tool);
    }
    if (tool.featured !== undefined && tool.featuredIf && !tool.featuredIf(config, env)) published = unfeatured(published);
    out.push(published);
  }
  return out;
}

/**
 * One copy per tool and kind of change, so that what is built from a tool once (its published
 * shape) is built once for the copy too.
 */
function copyOnce(copies: WeakMap<AnyTool, AnyTool>, tool: AnyTool, make: (tool: AnyTool) => AnyTool): AnyTool {
  let copy = copies.get(tool);
  if (!copy) copies.set(tool, (copy = make(tool)));
  return copy;
}

const readOnlyCopies = new WeakMap<AnyTool, AnyTool>();
const unfeaturedCopies = new WeakMap<AnyTool, AnyTool>();

/** The tool published as a reader (a writer that enforces read-only itself). */
function asReadOnly(tool: AnyTool): AnyTool {
  return copyOnce(readOnlyCopies, tool, (t) => ({ ...t, annotations: { ...t.annotations, readOnlyHint: true, destructiveHint: false } }));
}

/** The tool without its place among the featured ones (its `featuredIf` does not hold). */
function unfeatured(tool: AnyTool): AnyTool {
  return copyOnce(unfeaturedCopies, tool, ({ featured: _featured, ...rest }) => rest);
}

/**
 * Whether an upstream (or composite) tool stays in a read-only view: only when it says it is
 * read-only. MCP's default for a missing `readOnlyHint` is false, so silence means "may write".
 */
export function keepUnderReadOnly(annotations: { readOnlyHint?: boolean } | undefined): boolean {
  return annotations?.readOnlyHint === true;
}
