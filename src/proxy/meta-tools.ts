import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The three tools a view with `exposure: search` publishes instead of its catalog (seed 001):
 * search the catalog, describe one tool, call one tool. Names are `{view}_search_tools`,
 * `{view}_describe_tool` and `{view}_call_tool`. Pure.
 */
export type MetaOp = 'search' | 'describe' | 'call';

export function metaToolNames(view: string): Record<MetaOp, string> {
  return { search: `${view}_search_tools`, describe: `${view}_describe_tool`, call: `${view}_call_tool` };
}

/** `readOnly`: every tool behind them is read-only, so calling one is too. */
export function metaTools(view: string, description: string | undefined, toolCount: number, readOnly = false): Tool[] {
  const names = metaToolNames(view);
  const about = description ? ` (${description})` : '';
  const reading = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    {
      name: names.search,
      title: `Search the ${view} tools`,
      description: `Search the ${toolCount} tools of the "${view}" view${about} by what you want to do. Returns the best matches, most relevant first; then use ${names.describe} for a tool's parameters and ${names.call} to run it.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What you want to do, in a few words (e.g. "search issues").' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Most results to return.' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { title: `Search the ${view} tools`, ...reading },
    },
    {
      name: names.describe,
      title: `Describe a ${view} tool`,
      description: `Show one tool of the "${view}" view in full: description, input schema and annotations.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, description: `Tool name, as ${names.search} returned it.` } },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { title: `Describe a ${view} tool`, ...reading },
    },
    {
      name: names.call,
      title: `Call a ${view} tool`,
      description: `Call one tool of the "${view}" view by name with its arguments; returns that tool's own result.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: `Tool name, as ${names.search} returned it.` },
          arguments: { type: 'object', description: 'Arguments for the tool, as its input schema describes.' },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: { title: `Call a ${view} tool`, readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: false, openWorldHint: true },
    },
  ];
}
