import { isMap, isScalar, isSeq, type Document, type YAMLMap } from 'yaml';
import { field, ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';

/**
 * Changes to `mcp_servers` on a YAML document, for `editConfig`. They touch only the nodes they
 * change, so comments elsewhere survive; the whole file is validated afterwards. Pure.
 */
export function serverNames(doc: Document): string[] {
  return mapKeys(doc.get('mcp_servers'));
}

export function requireServer(doc: Document, name: string): YAMLMap {
  const node = doc.getIn(['mcp_servers', name]);
  if (isMap(node)) return node;
  throw unknownServer(name, serverNames(doc));
}

/**
 * The servers an edit of a document put in place or took out (added, replaced with force,
 * removed): approvals given to what was there before never carry over to what is there now, so
 * their pins are dropped with the edit (tools/shared/config-access.ts). A server that is
 * renamed or reshaped keeps them. Each name maps to whether an entry was there before (replaced
 * or removed): what it pinned may still be on its way to the lock file.
 */
const placedOrRemoved = new WeakMap<Document, Map<string, boolean>>();

export function serversLosingTrust(doc: Document): ReadonlyMap<string, boolean> {
  return placedOrRemoved.get(doc) ?? new Map();
}

function loseTrust(doc: Document, name: string, wasThere: boolean): void {
  const names = placedOrRemoved.get(doc) ?? new Map<string, boolean>();
  names.set(name, wasThere || names.get(name) === true);
  placedOrRemoved.set(doc, names);
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
  // A new entry under a name trusts nothing approved under it before: a replaced server, or one removed by hand.
  loseTrust(doc, name, exists);
  return { replaced: exists };
}

/** Views that list the server (tool_views.V.servers, as a list or a map). */
export function viewsUsing(doc: Document, name: string): string[] {
  const views = doc.get('tool_views');
  if (!isMap(views)) return [];
  const using: string[] = [];
  for (const pair of views.items) {
    const servers = isMap(pair.value) ? pair.value.get('servers') : undefined;
    const listed = isMap(servers) ? servers.has(name) : isSeq(servers) && servers.items.some((item) => String(isScalar(item) ? item.value : item) === name);
    if (listed) using.push(String(isScalar(pair.key) ? pair.key.value : pair.key));
  }
  return using;
}

export function removeServer(doc: Document, name: string): void {
  requireServer(doc, name);
  const using = viewsUsing(doc, name);
  if (using.length > 0) {
    throw new ToolError(
      'CONFLICT',
      `Server "${name}" is used by ${using.length === 1 ? 'view' : 'views'} ${using.map((v) => `"${v}"`).join(', ')}, which would then name a server that does not exist.`,
      {
        details: { server: name, views: using },
        hint: `Take it out of ${using.length === 1 ? 'that view' : 'those views'} first: ${using.map((v) => `mcpkit view remove-server ${v} ${name}`).join('; ')}.`,
      },
    );
  }
  doc.deleteIn(['mcp_servers', name]);
  loseTrust(doc, name, true);
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

/** What an allow-list change replaced: the former list (null: there was none), and the overrides dropped with their tools. */
export interface ToolsReplaced {
  previous: string[] | null;
  dropped_overrides: string[];
}

/**
 * Replaces the allow-list, keeping overrides of tools that stay; null removes it (all tools pass)
 * and moves every override it held under `overrides:` (which hides no tool), where what the
 * allow-list said wins over an older `overrides:` entry of the same tool.
 */
export function setServerTools(doc: Document, name: string, tools: readonly string[] | null): ToolsReplaced {
  const server = requireServer(doc, name);
  const old = server.get('tools');
  const previous = isMap(old) ? old.items.map((pair) => String(isScalar(pair.key) ? pair.key.value : pair.key)) : null;
  const overridden = isMap(old) ? previous!.filter((tool) => isMap(old.get(tool)) && (old.get(tool) as YAMLMap).items.length > 0) : [];
  if (tools === null) {
    if (overridden.length > 0) {
      const existing = server.get('overrides');
      const merged: Record<string, unknown> = isMap(existing) ? (existing.toJSON() as Record<string, unknown>) : {};
      for (const tool of overridden) merged[tool] = { ...((merged[tool] as object | undefined) ?? {}), ...((old as YAMLMap).get(tool) as YAMLMap).toJSON() };
      server.set('overrides', doc.createNode(merged));
    }
    server.delete('tools');
    return { previous, dropped_overrides: [] };
  }
  const kept = Object.fromEntries(tools.map((tool) => [tool, isMap(old) && isMap(old.get(tool)) ? (old.get(tool) as YAMLMap).toJSON() : {}]));
  server.set('tools', doc.createNode(kept));
  return { previous, dropped_overrides: overridden.filter((tool) => !tools.includes(tool)) };
}

/**
 * Sets one field of a tool's override: in the server's allow-list entry when it has an
 * allow-list (the tool must be in it), else under `overrides:`, which hides no other tool.
 * Returns where it was written.
 */
export function setToolOverride(doc: Document, name: string, tool: string, key: 'description' | 'name', value: string): 'tools' | 'overrides' {
  const server = requireServer(doc, name);
  const tools = server.get('tools');
  if (isMap(tools)) {
    if (!tools.has(tool)) {
      throw new ToolError('NOT_FOUND', `Tool "${tool}" is not in the allow-list of server "${name}".`, {
        details: { server: name, tool, allowed: tools.items.map((p) => String((p.key as { value?: unknown })?.value ?? p.key)) },
        hint: `Add it with mcpkit server set-tools ${name} ... ${tool}.`,
      });
    }
    const entry = tools.get(tool);
    if (isMap(entry)) entry.set(key, value);
    else tools.set(tool, doc.createNode({ [key]: value }));
    return 'tools';
  }
  const overrides = server.get('overrides');
  if (!isMap(overrides)) server.set('overrides', doc.createNode({ [tool]: { [key]: value } }));
  else {
    const entry = overrides.get(tool);
    if (isMap(entry)) entry.set(key, value);
    else overrides.set(tool, doc.createNode({ [key]: value }));
  }
  return 'overrides';
}

/** Removes one field of a tool's override, wherever it is; an override left empty goes too. */
export function clearToolOverride(doc: Document, name: string, tool: string, key: 'description' | 'name'): void {
  const server = requireServer(doc, name);
  for (const where of ['tools', 'overrides'] as const) {
    const map = server.get(where);
    if (!isMap(map)) continue;
    const entry = map.get(tool);
    if (!isMap(entry)) continue;
    entry.delete(key);
    // An allow-list entry stays (it lets the tool through); an empty override is nothing.
    if (where === 'overrides' && entry.items.length === 0) map.delete(tool);
  }
  const overrides = server.get('overrides');
  if (isMap(overrides) && overrides.items.length === 0) server.delete('overrides');
}

export function setToolDescription(doc: Document, name: string, tool: string, text: string): 'tools' | 'overrides' {
  return setToolOverride(doc, name, tool, 'description', text);
}

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

/**
 * Renames a server where it stands, and in every view that lists it (as a list or a map), so the
 * file keeps its order and comments. Returns the views changed.
 */
export function renameServer(doc: Document, from: string, to: string): string[] {
  requireServer(doc, from);
  if (from === to) throw new ToolError('INVALID_INPUT', `The server is already named "${to}".`, { details: { server: from } });
  if (doc.hasIn(['mcp_servers', to])) {
    throw new ToolError('CONFLICT', `A server named "${to}" already exists.`, {
      details: { server: from, to },
      hint: `Choose another name, or remove that one first: mcpkit server remove ${to}`,
    });
  }
  renameKey(doc.get('mcp_servers') as YAMLMap, from, to, doc);
  const using = viewsUsing(doc, from);
  for (const view of using) {
    const servers = doc.getIn(['tool_views', view, 'servers']);
    if (isMap(servers)) renameKey(servers, from, to, doc);
    else if (isSeq(servers)) {
      const at = servers.items.findIndex((item) => String(isScalar(item) ? item.value : item) === from);
      servers.set(at, doc.createNode(to));
    }
  }
  return using;
}

function renameKey(map: YAMLMap, from: string, to: string, doc: Document): void {
  const pair = map.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === from)!;
  if (isScalar(pair.key)) pair.key.value = to;
  else pair.key = doc.createNode(to);
}
