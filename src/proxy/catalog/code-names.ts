import type { DeclaredTool } from '../../code/declarations.js';
import type { DeclarationLimits } from '../../code/declaration-limits.js';
import type { ToolTree } from '../../code/protocol.js';
import { publish } from './catalog.js';
import type { CatalogEntry } from './catalog.js';

/** What a code-mode script of one client reaches (ProxyHub.codeTools), and how large its declarations may be. */
export interface CodeTools {
  declared: DeclaredTool[];
  tree: ToolTree;
  /** What a name the tree does not have would be published under. */
  publishedFor(group: string, name: string): string;
  declarationLimits: DeclarationLimits;
}

/** The group a code-mode script reaches mcpkit's own tools and the composites under. */
export const OWN_GROUP = 'mcpkit';

/**
 * A catalog entry as a code-mode script reaches it: an upstream tool under its server, by the name
 * the view publishes it under without the server's prefix (`tools.everything.echo` for
 * `everything__echo`); mcpkit's own tools and the composites under `mcpkit`. Pure.
 */
export function declaredToolOf(entry: CatalogEntry, separator: string | null | undefined): DeclaredTool {
  const tool = publish(entry);
  const described = {
    published: entry.name,
    // The entry lives as long as its catalog's generation: its declaration is made once for it.
    anchor: entry,
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  };
  if (entry.kind !== 'upstream') return { group: OWN_GROUP, name: entry.name, ...described };
  return { group: entry.server, name: bareName(entry.name, entry.server, separator), ...described };
}

/** A published name without its server's prefix (`echo` for `everything__echo`). Pure. */
export function bareName(published: string, server: string, separator: string | null | undefined): string {
  const prefix = separator === null ? undefined : `${server}${separator ?? '__'}`;
  return prefix && published.startsWith(prefix) && published.length > prefix.length ? published.slice(prefix.length) : published;
}

/** The script's `tools` for these tools: group -> name -> published name (the first of a name in a group wins). Pure. */
export function toolTreeOf(tools: readonly DeclaredTool[]): ToolTree {
  const tree: ToolTree = {};
  for (const tool of tools) {
    const group = (tree[tool.group] ??= {});
    group[tool.name] ??= tool.published;
  }
  return tree;
}

/** The tool a describe names: its published name, or how a script reaches it (`everything.echo`, `tools.everything["get-sum"]`). */
export function declaredNamed(tools: readonly DeclaredTool[], name: string): DeclaredTool | undefined {
  const bare = name.trim().replace(/^tools\./, '');
  return (
    tools.find((t) => t.published === bare) ??
    tools.find((t) => `${t.group}.${t.name}` === bare || `${t.group}[${JSON.stringify(t.name)}]` === bare || `${t.group}['${t.name}']` === bare)
  );
}
