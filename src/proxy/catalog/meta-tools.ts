import type { Tool } from '@modelcontextprotocol/server';

/**
 * The three tools a view publishes instead of its catalog under `exposure: search`, or under
 * `auto` when the catalog is over budget: search the catalog, describe one tool, call
 * one tool. Names are `{view}_search_tools`, `{view}_describe_tool` and `{view}_call_tool`. Pure.
 */
export type MetaOp = 'search' | 'describe' | 'call';

export function metaToolNames(view: string): Record<MetaOp, string> {
  return { search: `${view}_search_tools`, describe: `${view}_describe_tool`, call: `${view}_call_tool` };
}

/** What the meta-tools say is behind them, so an agent knows when to look. */
export interface MetaAbout {
  /** The view's own description. */
  description?: string;
  /** How many tools are behind them. */
  count: number;
  /** Kinds of tools behind them: mcpkit's groups and the servers, e.g. `server "memory" (9)`. */
  contents: readonly string[];
}

/**
 * `view`: the view's name (the default view: "mcpkit"). `readOnly`: every tool behind them is
 * read-only, so calling one is too.
 */
export function metaTools(view: string, about: MetaAbout, readOnly = false): Tool[] {
  const names = metaToolNames(view);
  const what = about.description ? ` (${about.description})` : '';
  const contents = about.contents.length ? ` Behind it: ${about.contents.join('; ')}.` : '';
  const reading = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    {
      name: names.search,
      title: `Search the ${view} tools`,
      description: `Find a tool for a task among the ${about.count} tools of "${view}"${what}.${contents} Returns the best matches first; then ${names.describe} gives a tool's parameters and ${names.call} runs it.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What you want to do, in a few words (e.g. "search issues").' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Most results to return.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: reading,
    },
    {
      name: names.describe,
      title: `Describe a ${view} tool`,
      description: `Show one tool of "${view}" in full: description, input schema and annotations.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, description: `Tool name, as ${names.search} returned it.` } },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: reading,
    },
    {
      name: names.call,
      title: `Call a ${view} tool`,
      description: `Call one tool of "${view}" by name with its arguments; returns that tool's own result.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: `Tool name, as ${names.search} returned it.` },
          arguments: { type: 'object', description: 'Arguments for the tool, as its input schema describes.' },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: false, openWorldHint: true },
    },
  ];
}
