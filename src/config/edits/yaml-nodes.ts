import { isMap, isSeq } from 'yaml';

/** The keys of a YAML mapping node, as text, in their order; none for anything else (absent, a list, a scalar). Pure. */
export function mapKeys(node: unknown): string[] {
  return isMap(node) ? node.items.map((pair) => String((pair.key as { value?: unknown })?.value ?? pair.key)) : [];
}

/** The names a node lists: a list's items as text, or a mapping's keys (a view's `servers` may be either). Pure. */
export function listedNames(node: unknown): string[] {
  return isSeq(node) ? node.items.map((item) => String((item as { value?: unknown })?.value ?? item)) : mapKeys(node);
}
