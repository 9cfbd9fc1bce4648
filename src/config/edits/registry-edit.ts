import { isMap, type Document } from 'yaml';
import { field, ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { mapKeys } from './yaml-nodes.js';

/** A named registry as `registry.sources.NAME` holds it. */
export interface RegistrySourceEntry {
  url: string;
  api_key?: string;
  tenant_id?: string;
}

function sourceNames(doc: Document): string[] {
  return mapKeys(doc.getIn(['registry', 'sources']));
}

/**
 * Changes to `registry.sources` (and `registry.default`) on a YAML document, for `editConfig`:
 * only the nodes they change, so comments elsewhere survive; the whole file is validated
 * afterwards (a bad URL is refused there, the file unchanged). Pure.
 */
export function addRegistrySource(
  doc: Document,
  name: string,
  entry: RegistrySourceEntry,
  options: { force: boolean; makeDefault: boolean },
): { replaced: boolean } {
  const exists = doc.hasIn(['registry', 'sources', name]);
  if (exists && !options.force) {
    throw new ToolError('CONFLICT', `A registry named "${name}" already exists.`, {
      details: { registry: name },
      hint: `Pass ${field('force')} to replace it, or choose another name.`,
    });
  }
  if (!isMap(doc.get('registry'))) doc.set('registry', doc.createNode({}));
  if (!isMap(doc.getIn(['registry', 'sources']))) doc.setIn(['registry', 'sources'], doc.createNode({}));
  doc.setIn(['registry', 'sources', name], doc.createNode(entry));
  if (options.makeDefault) doc.setIn(['registry', 'default'], name);
  return { replaced: exists };
}

/** Removes a configured registry; when it was the default, the default goes back to the built-in choice. */
export function removeRegistrySource(doc: Document, name: string): { wasDefault: boolean } {
  if (!doc.hasIn(['registry', 'sources', name])) {
    throw notFound('registry', name, sourceNames(doc), 'Only registries under registry.sources can be removed; official and pulsemcp are built in.');
  }
  doc.deleteIn(['registry', 'sources', name]);
  const sources = doc.getIn(['registry', 'sources']);
  if (isMap(sources) && sources.items.length === 0) doc.deleteIn(['registry', 'sources']);
  const wasDefault = doc.getIn(['registry', 'default']) === name;
  if (wasDefault) doc.deleteIn(['registry', 'default']);
  return { wasDefault };
}
