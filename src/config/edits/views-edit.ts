import { isMap, isSeq, type Document, type YAMLMap } from 'yaml';
import { field, ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { listedNames, mapKeys } from './yaml-nodes.js';

/** Changes to `tool_views` on a YAML document, for `editConfig`. Pure. */

export function viewNames(doc: Document): string[] {
  return mapKeys(doc.get('tool_views'));
}

export function requireView(doc: Document, name: string): YAMLMap {
  const node = doc.getIn(['tool_views', name]);
  if (isMap(node)) return node;
  throw notFound('view', name, viewNames(doc), 'Create one with: mcpkit view create NAME');
}

export function createView(doc: Document, name: string, spec: Record<string, unknown>, options: { force: boolean }): { replaced: boolean } {
  const exists = doc.hasIn(['tool_views', name]);
  if (exists && !options.force) {
    throw new ToolError('CONFLICT', `A view named "${name}" already exists.`, { details: { view: name }, hint: `Pass ${field('force')} to replace it.` });
  }
  if (!isMap(doc.get('tool_views'))) doc.set('tool_views', doc.createNode({}));
  doc.setIn(['tool_views', name], doc.createNode(spec));
  return { replaced: exists };
}

export function deleteView(doc: Document, name: string): void {
  requireView(doc, name);
  doc.deleteIn(['tool_views', name]);
}

/** The view's `servers` as a mapping (a list of names is converted, keeping order). */
function serversMap(doc: Document, view: YAMLMap): YAMLMap {
  const servers = view.get('servers');
  if (isMap(servers)) return servers;
  const names = listedNames(servers);
  const map = doc.createNode(Object.fromEntries(names.map((n) => [n, {}]))) as YAMLMap;
  view.set('servers', map);
  return map;
}

export function addViewServer(doc: Document, viewName: string, server: string, tools: readonly string[] | undefined): void {
  const view = requireView(doc, viewName);
  if (!doc.hasIn(['mcp_servers', server])) {
    throw notFound('server', server, mapKeys(doc.get('mcp_servers')), 'Add it first with: mcpkit server add NAME ...');
  }
  const current = view.get('servers');
  if (!tools?.length && (current === undefined || isSeq(current))) {
    // Keep the simple list form while no server of the view has a tool selection.
    const names = listedNames(current);
    if (!names.includes(server)) view.set('servers', doc.createNode([...names, server]));
    return;
  }
  const map = serversMap(doc, view);
  map.set(server, doc.createNode(tools?.length ? { tools: Object.fromEntries(tools.map((t) => [t, {}])) } : {}));
}

/** How many servers a view lists (enabled or not): what decides whether it prefixes (ResolvedView.prefixed). */
export function listedServerCount(doc: Document, viewName: string): number {
  const servers = doc.getIn(['tool_views', viewName, 'servers']);
  return listedNames(servers).length;
}

/**
 * What an edit that took a view from `before` listed servers to `after` does to its tool names:
 * a second server puts every tool's server in front of its name, going back to one takes it away.
 */
export function prefixChange(before: number, after: number): 'now_prefixed' | 'now_unprefixed' | undefined {
  if (before <= 1 && after > 1) return 'now_prefixed';
  if (before > 1 && after <= 1) return 'now_unprefixed';
  return undefined;
}

export function removeViewServer(doc: Document, viewName: string, server: string): void {
  const view = requireView(doc, viewName);
  const servers = view.get('servers');
  const names = listedNames(servers);
  if (!names.includes(server)) {
    throw new ToolError('NOT_FOUND', `View "${viewName}" does not include server "${server}".`, { details: { view: viewName, server, servers: names } });
  }
  if (isSeq(servers)) view.set('servers', doc.createNode(names.filter((n) => n !== server)));
  else (servers as YAMLMap).delete(server);
}

/** Sets the view's selection of one server's tools; null removes it (all the server's tools). */
export function setViewTools(doc: Document, viewName: string, server: string, tools: readonly string[] | null): void {
  const view = requireView(doc, viewName);
  const servers = view.get('servers');
  const names = listedNames(servers);
  if (!names.includes(server)) {
    throw new ToolError('NOT_FOUND', `View "${viewName}" does not include server "${server}".`, {
      details: { view: viewName, server },
      hint: `Add it with: mcpkit view add-server ${viewName} ${server}`,
    });
  }
  const map = serversMap(doc, view);
  map.set(server, doc.createNode(tools === null ? {} : { tools: Object.fromEntries(tools.map((t) => [t, {}])) }));
}

export function setViewField(doc: Document, viewName: string, key: string, value: unknown): boolean {
  const view = requireView(doc, viewName);
  const current = view.get(key);
  if (current === value || (Array.isArray(value) && JSON.stringify((current as { toJSON?(): unknown } | undefined)?.toJSON?.()) === JSON.stringify(value)))
    return false;
  if (value === undefined) view.delete(key);
  else view.set(key, Array.isArray(value) ? doc.createNode(value, { flow: true }) : value);
  return true;
}
