import { isMap } from 'yaml';

/** The keys of a YAML mapping node, as text, in their order; none for anything else (absent, a list, a scalar). Pure. */
export function mapKeys(node: unknown): string[] {
  return isMap(node) ? node.items.map((pair) => String((pair.key as { value?: unknown })?.value ?? pair.key)) : [];
}
