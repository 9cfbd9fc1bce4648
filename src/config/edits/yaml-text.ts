import { isMap, isScalar, isSeq, parseDocument, stringify } from 'yaml';

/** YAML text of plain data, for human output (loaded on demand: yaml is not needed to start). */
export function toYamlText(data: unknown): string {
  return stringify(data);
}

/**
 * The file's own text, comments and layout kept, with each scalar that `masked` (the same data
 * after masking, config/secrets/mask.ts) changed replaced by its masked value. Pure.
 */
export function maskedFileText(text: string, masked: unknown): string {
  const doc = parseDocument(text);
  const walk = (node: unknown, data: unknown): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key !== undefined) walk(pair.value, (data as Record<string, unknown> | undefined)?.[key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, (data as unknown[] | undefined)?.[i]));
    } else if (isScalar(node) && typeof data === 'string' && data !== node.value) {
      node.value = data;
    }
  };
  walk(doc.contents, masked);
  return doc.toString();
}
