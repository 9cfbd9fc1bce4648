import type { Tool } from '@modelcontextprotocol/server';

/**
 * The three tools a view publishes instead of its catalog under `exposure: search`, or under
 * `auto` when the catalog is over budget: search the catalog, describe one tool, call one tool;
 * names are `{view}_search_tools`, `{view}_describe_tool` and `{view}_call_tool`. Under `exposure:
 * code` the third is `{view}_run_code`, which runs a script against the tools, and search and
 * describe answer with the TypeScript declarations the script calls them by. Pure.
 */
export type MetaOp = 'search' | 'describe' | 'call' | 'run';
export type MetaMode = 'search' | 'code';

export function metaToolNames(view: string, mode: MetaMode = 'search'): Partial<Record<MetaOp, string>> & Record<'search' | 'describe', string> {
  const found = { search: `${view}_search_tools`, describe: `${view}_describe_tool` };
  return mode === 'code' ? { ...found, run: `${view}_run_code` } : { ...found, call: `${view}_call_tool` };
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
export function metaTools(view: string, about: MetaAbout, readOnly = false, mode: MetaMode = 'search'): Tool[] {
  if (mode === 'code') return codeMetaTools(view, about, readOnly);
  const names = metaToolNames(view) as Record<'search' | 'describe' | 'call', string>;
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

/** Most kinds of tools a code view's search names in its description (the listing stays small however many servers). */
const MAX_CONTENTS = 8;

/** The three tools of a code view: its listing stays about the same size however many tools are behind it. */
function codeMetaTools(view: string, about: MetaAbout, readOnly: boolean): Tool[] {
  const names = metaToolNames(view, 'code') as Record<'search' | 'describe' | 'run', string>;
  const what = about.description ? ` (${about.description})` : '';
  const shown = about.contents.slice(0, MAX_CONTENTS);
  const more = about.contents.length > shown.length ? `; and ${about.contents.length - shown.length} more` : '';
  const contents = shown.length ? ` Behind it: ${shown.join('; ')}${more}.` : '';
  // A listing that stays small: what a reading tool's other hints would say, its readOnlyHint says.
  const reading = { readOnlyHint: true, openWorldHint: false };
  return [
    {
      name: names.search,
      description: `Find tools for a task among the ${about.count} tools of "${view}"${what}.${contents} Answers with the TypeScript declarations ${names.run} scripts call them by.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'The task, in a few words.' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: reading,
    },
    {
      name: names.describe,
      description: `The TypeScript declaration of one tool of "${view}": its parameters, their types and descriptions, and its result type where it has one.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1, description: `Tool name, as ${names.search} declared it (tools.SERVER.TOOL, or its published name).` },
        },
        required: ['name'],
        additionalProperties: false,
      },
      annotations: reading,
    },
    {
      name: names.run,
      description: `Run JavaScript or TypeScript on the tools of "${view}" in a sandbox: \`await tools.SERVER.TOOL(args)\` (tools.s["a-b"] for other names) gives its result or throws an Error with code and details; Promise.all runs calls in parallel; await sleep(ms) waits; console.log is kept. An async function body: return the result. No require, import or fetch.`,
      inputSchema: {
        type: 'object',
        properties: {
          code: { type: 'string', minLength: 1 },
          timeout_ms: { type: 'integer', minimum: 100, description: "At most the view's code.timeout_ms." },
        },
        required: ['code'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: false, openWorldHint: true },
    },
  ];
}
