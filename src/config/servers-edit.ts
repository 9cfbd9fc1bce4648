import { isMap, type Document, type YAMLMap } from 'yaml';
import { field, ToolError } from '../core/errors.js';
import { notFound } from '../core/suggest.js';

/**
 * Changes to `mcp_servers` on a YAML document, for `editConfig`. They touch only the nodes they
 * change, so comments elsewhere survive; the whole file is validated afterwards. Pure.
 */
export function serverNames(doc: Document): string[] {
  const servers = doc.get('mcp_servers');
  return isMap(servers) ? servers.items.map((pair) => String((pair.key as { value?: unknown })?.value ?? pair.key)) : [];
}

export function requireServer(doc: Document, name: string): YAMLMap {
  const node = doc.getIn(['mcp_servers', name]);
  if (isMap(node)) return node;
  throw notFound('server', name, serverNames(doc), '"mcpkit server list" shows the configured servers.');
}

export function addServer(doc: Document, name: string, entry: Record<string, unknown>, options: { force: boolean }): { replaced: boolean } {
  const exists = doc.hasIn(['mcp_servers', name]);
  if (exists && !options.force) {
    throw new ToolError('CONFLICT', `A server named "${name}" already exists.`, {
      details: { server: name },
      hint: `Pass ${field('force')} to replace it, or choose another name.`,
    });
  }
  if (!isMap(doc.get('mcp_servers'))) doc.set('mcp_servers', doc.createNode({}));
  doc.setIn(['mcp_servers', name], doc.createNode(entry));
  return { replaced: exists };
}

export function removeServer(doc: Document, name: string): void {
  requireServer(doc, name);
  doc.deleteIn(['mcp_servers', name]);
}

/** Returns whether anything changed (enabling an enabled server is not an error). */
export function setServerDisabled(doc: Document, name: string, disabled: boolean): boolean {
  const server = requireServer(doc, name);
  const was = server.get('disabled') === true;
  if (was === disabled) return false;
  if (disabled) server.set('disabled', true);
  else server.delete('disabled');
  return true;
}

/** Replaces the allow-list, keeping overrides of tools that stay; null removes it (all tools pass). */
export function setServerTools(doc: Document, name: string, tools: readonly string[] | null): void {
  const server = requireServer(doc, name);
  if (tools === null) {
    server.delete('tools');
    return;
  }
  const old = server.get('tools');
  const kept = Object.fromEntries(tools.map((tool) => [tool, isMap(old) && isMap(old.get(tool)) ? (old.get(tool) as YAMLMap).toJSON() : {}]));
  server.set('tools', doc.createNode(kept));
}

export function setToolDescription(doc: Document, name: string, tool: string, text: string): void {
  const server = requireServer(doc, name);
  const tools = server.get('tools');
  if (!isMap(tools)) {
    throw new ToolError('CONFLICT', `Server "${name}" has no tools allow-list, so a per-tool description would hide its other tools.`, {
      details: { server: name, tool },
      hint: `List the tools to expose first: mcpkit server set-tools ${name} ${tool} ...`,
    });
  }
  if (!tools.has(tool)) {
    throw new ToolError('NOT_FOUND', `Tool "${tool}" is not in the allow-list of server "${name}".`, {
      details: { server: name, tool, allowed: tools.items.map((p) => String((p.key as { value?: unknown })?.value ?? p.key)) },
      hint: `Add it with mcpkit server set-tools ${name} ... ${tool}.`,
    });
  }
  const entry = tools.get(tool);
  if (isMap(entry)) entry.set('description', text);
  else tools.set(tool, doc.createNode({ description: text }));
}

/** `K=V` strings (repeatable flags) to a record; the first `=` splits. */
/** `--env A=1 --env B=2` as an object; `flag` is the flag's name (`env`, `header`). */
export function parsePairs(pairs: readonly string[] | undefined, flag: string): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw new ToolError('INVALID_INPUT', `--${flag} "${pair}" is not KEY=VALUE.`, { hint: `Write e.g. --${flag} NAME=value.` });
    }
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** Replaces the server's ordered filter rules; an empty list removes them (everything passes). */
export function setServerFilter(doc: Document, name: string, rules: readonly ({ include: string } | { exclude: string })[]): void {
  const server = requireServer(doc, name);
  if (rules.length === 0) server.delete('filter');
  else server.set('filter', doc.createNode(rules.map((r) => ({ ...r }))));
}
