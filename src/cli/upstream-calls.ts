import { printableText } from '../core/printable.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { Runtime } from '../app/runtime.js';
import type { DownstreamRelay } from '../proxy/upstream/upstream.js';
import { exitCodeFor, isErrorCode, ToolError, type ErrorObject } from '../core/errors.js';
import { notFound } from '../core/suggest.js';
import type { JsonSchema } from '../core/schema.js';
import { summaryOf } from '../tool/define.js';
import { fieldSpecs, inputFromPairs } from './args/field-specs.js';
import type { CliIo } from './terminal/cli-io.js';
import { commandScope } from './terminal/command-scope.js';
import { reportError } from './tool-runner.js';
import { callFromTerminal } from '../mcp/pipeline/terminal-calls.js';

/**
 * The work of `mcpkit call` (an upstream tool) and `mcpkit tools` (the upstream part) without the
 * printing: a command does it in its own process, or `mcpkit daemon` does it over its warm
 * connections and the command prints what comes back.
 */
export interface ToolListing {
  name: string;
  group: string;
  command?: string;
  read_only: boolean;
  /** The description's first line. */
  description: string;
  /** The whole description, where it says more than its first line. */
  full_description?: string;
  /** The JSON Schema of its arguments, as tools/list publishes it. */
  input_schema: unknown;
}

export interface UpstreamListing {
  tools: ToolListing[];
  /** Servers that are not ready, one line each, for stderr. */
  notes: string[];
}

/** An MCP tools/call result, as the command prints it. */
export interface UpstreamResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** `full_description` of a listing, where the description has more than its summary. */
export function fullDescription(tool: { description?: string }): { full_description?: string } {
  const whole = tool.description?.trim() ?? '';
  return whole && whole !== summaryOf(tool as { description: string }) ? { full_description: whole } : {};
}

/** One upstream or composite tool as `mcpkit tools` lists it. */
function listingOf(tool: Tool, server: string | undefined): ToolListing {
  return {
    name: tool.name,
    group: server ? `server:${server}` : 'composite',
    read_only: tool.annotations?.readOnlyHint === true,
    description: summaryOf(tool),
    ...fullDescription(tool),
    input_schema: tool.inputSchema,
  };
}

/** `mcpkit call NAME` of an upstream tool, as the command line gave it. */
export interface UpstreamCallLine {
  name: string;
  base: Record<string, unknown>;
  pairs: readonly string[];
  /** --view: the view whose tool it is, its pins, hooks and conditions applying (the default one when absent). */
  view?: string | undefined;
}

/** How the call is made: `downstream` (call --elicitation), its progress, and what stops it (a task cancelled). */
export interface UpstreamCallHow {
  downstream?: DownstreamRelay | undefined;
  /** Told of the call's progress (a terminal draws it: cli/progress-bar.ts). */
  progress?: ((update: { progress: number; total?: number; message?: string }) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Calls an upstream tool by its published name; NOT_FOUND (with what is down or set aside) when no
 * server has it. With `downstream` (call --elicitation), the call's connections are its own, and
 * what a server asks during the call goes to it.
 */
export async function callUpstreamTool(runtime: Runtime, line: UpstreamCallLine, how: UpstreamCallHow = {}): Promise<UpstreamResult> {
  const { name, base, pairs } = line;
  const { downstream, progress, signal } = how;
  return runtime.withHub(
    line.view,
    async (hub) => {
      // Judged as a call over MCP is (CallRouter.find), starting only the server that has the tool
      // when an earlier command's listing says which; a bare name (`echo`) is the one full name it ends.
      let called = name;
      let found = await hub.catalog.lookup(name, { reach: 'owner', judge: true });
      if (found.kind === 'unknown') {
        const full = await bareNameOf(hub, name);
        if (full) found = await hub.catalog.lookup((called = full), { reach: 'owner', judge: true });
      }
      // mcpkit's own tools are called as the terminal runs any tool, not here; a name that is
      // withheld, gone or refused is answered so by the port, as an agent's call of it is.
      if (found.kind === 'unknown' || (found.kind === 'entry' && found.entry.kind === 'local')) throw await notServed(runtime, hub, name);
      const schema = found.kind === 'entry' && found.entry.kind !== 'local' ? (found.entry.tool.inputSchema as JsonSchema) : { type: 'object' };
      const input = { ...base, ...inputFromPairs([...pairs], fieldSpecs(schema)) };
      // Through the port every call enters, as an agent's call is (mcp/pipeline/terminal-calls.ts).
      return (await callFromTerminal(runtime, hub, { name: called, arguments: input, signal, progress })) as UpstreamResult;
    },
    downstream ? { quiet: true, downstream } : undefined,
  );
}

/** NOT_FOUND for a name no upstream or composite tool of the view has, with what is down or set aside. */
async function notServed(runtime: Runtime, hub: Hub, name: string): Promise<ToolError> {
  const down = hub
    .status()
    .filter((s) => s.state === 'down')
    .map((s) => s.name);
  const unusable = Object.keys((await runtime.config()).unusable ?? {})
    .filter((unit) => unit.startsWith('mcp_servers.'))
    .map((unit) => unit.slice('mcp_servers.'.length));
  const otherwise = [
    '"mcpkit tools" lists every tool.',
    down.some((s) => !unusable.includes(s)) ? `Not reachable now: ${down.filter((s) => !unusable.includes(s)).join(', ')}.` : '',
    unusable.length ? `Set aside for problems in the config (see "mcpkit server list"): ${unusable.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return notFound('tool', name, await hub.catalog.names(), otherwise, { unavailable_servers: down });
}

type Hub = Parameters<Parameters<Runtime['withHub']>[1]>[0];

/**
 * The full name a bare upstream name means (`everything__echo` for `echo`), when exactly one
 * server's tool is published, or withheld, under it: from the tools earlier listings left when
 * every server's are known there (nothing started), else from the whole catalog. Several:
 * INVALID_INPUT naming them, since guessing would call a server the user did not mean.
 */
async function bareNameOf(hub: Hub, name: string): Promise<string | undefined> {
  const separator = hub.view.separator === undefined ? '__' : hub.view.separator;
  if (separator === null) return undefined;
  const known = hub.catalog.knownTools();
  const published = known.unlisted.length === 0 ? known.tools.map((t) => t.tool.name) : await hub.catalog.names();
  const servers = hub.view.servers.map((s) => s.name);
  const candidates = matchingBareName(published, name, separator, servers);
  if (candidates.length > 1) {
    throw new ToolError('INVALID_INPUT', `More than one server has a tool "${name}": ${candidates.join(', ')}.`, {
      details: { tool: name, candidates },
      hint: `Call it by its full name, e.g. "mcpkit call ${candidates[0]}".`,
    });
  }
  if (candidates.length === 1) return candidates[0];
  // A bare name of a withheld tool is that tool, withheld: said as for its full name (TOOL_NOT_APPROVED), not "not found".
  const withheld = matchingBareName(
    hub.catalog.withheldTools().map((w) => w.name),
    name,
    separator,
    servers,
  );
  return withheld.length === 1 ? withheld[0] : undefined;
}

/** The published names that are `{server}{separator}{name}` for one of `servers`. Pure. */
export function matchingBareName(published: readonly string[], name: string, separator: string, servers: readonly string[]): string[] {
  const names = new Set(published);
  return servers.map((server) => `${server}${separator}${name}`).filter((full) => names.has(full));
}

/** The upstream servers' tools (the whole catalog, composites too), leaving out the names in `skip`. */
export async function listUpstreamTools(runtime: Runtime, skip: ReadonlySet<string>): Promise<UpstreamListing> {
  return runtime.withHub(undefined, async (hub) => {
    // The whole catalog: under exposure search or auto, tools/list shows part of it and the rest is reached through search.
    const listed = (await hub.catalog.catalogTools()).filter((t) => !skip.has(t.name));
    const tools = await Promise.all(listed.map(async (t) => listingOf(t, (await hub.catalog.lookup(t.name, { reach: 'known' })).server)));
    const notes = hub
      .status()
      .filter((s) => s.state !== 'ready')
      .map((s) => `mcpkit: server ${s.name} ${s.state === 'needs_login' ? 'needs a login' : `is ${s.state}`}${s.error ? `: ${s.error}` : ''}`);
    return { tools, notes };
  });
}

/**
 * What `mcpkit call` prints for an upstream tool's result (JSON is printed by the caller): its
 * text, or its failure on stderr as every command's is: mcpkit's own error object, or the tool's
 * own words as an UPSTREAM_ERROR. The exit code follows.
 */
export function printUpstreamResult(name: string, result: UpstreamResult, json: boolean, io: CliIo = commandScope().io): void {
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  if (result.isError) {
    const own = (result.structuredContent as { error?: ErrorObject } | undefined)?.error;
    const published: ErrorObject = isErrorCode(own?.code) ? own! : { code: 'UPSTREAM_ERROR', message: `${name} failed: ${text || 'no details'}` };
    if (json) io.exitCode(exitCodeFor(published));
    else reportError(published, false, io);
    return;
  }
  // An upstream's words reach the terminal without its escape sequences (core/printable.ts).
  if (!json) io.out(`${printableText(text) || JSON.stringify(result.structuredContent ?? {}, null, 2)}\n`);
}

/**
 * `tools --cached`: the upstream tools as the last listing of each server left them (this
 * process's, else an earlier command's), without starting any server; a server never listed is
 * named in a note.
 */
export async function listKnownTools(runtime: Runtime, skip: ReadonlySet<string>): Promise<UpstreamListing> {
  return runtime.withHub(undefined, async (hub) => {
    const known = hub.catalog.knownTools();
    const tools = known.tools.filter(({ tool }) => !skip.has(tool.name)).map(({ tool, server }) => listingOf(tool, server));
    const notes = known.unlisted.map((s) => `mcpkit: server ${s} has no cached listing; "mcpkit tools" without --cached lists it`);
    return { tools, notes };
  });
}
