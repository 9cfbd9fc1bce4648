/**
 * Index suggestions for an explained query: a collection the plan reads with a full scan
 * (EnumerateCollectionNode) whose loop variable is filtered on attributes (`FILTER v.attr ==`,
 * `<`, `IN`, ...) would be served by a persistent index on those attributes. Read from the query
 * text (loop variables and their collections, then filters), so it is a suggestion, not a proof. Pure.
 */
export interface IndexSuggestion {
  collection: string;
  fields: string[];
  type: 'persistent';
  reason: string;
}

export function suggestIndexes(query: string, bindVars: Record<string, unknown>, scannedCollections: readonly string[]): IndexSuggestion[] {
  const loops = new Map<string, string>();
  for (const m of query.matchAll(/\bFOR\s+([A-Za-z_][A-Za-z0-9_]*)\s+IN\s+(@@[A-Za-z0-9_]+|`[^`]+`|[A-Za-z_][A-Za-z0-9_-]*)/gi)) {
    const source = m[2]!;
    const collection = source.startsWith('@@') ? String(bindVars[source.slice(1)] ?? '') : source.replace(/`/g, '');
    if (collection) loops.set(m[1]!, collection);
  }
  const byCollection = new Map<string, string[]>();
  for (const m of query.matchAll(/\bFILTER\s+([^\n]*?)(?=\bFILTER\b|\bSORT\b|\bLIMIT\b|\bRETURN\b|\bCOLLECT\b|\bLET\b|$)/gis)) {
    for (const cond of m[1]!.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_.]*)\s*(==|<=|>=|<|>|\bIN\b)/gi)) {
      const collection = loops.get(cond[1]!);
      if (!collection || !scannedCollections.includes(collection)) continue;
      const fields = byCollection.get(collection) ?? [];
      if (!fields.includes(cond[2]!)) fields.push(cond[2]!);
      byCollection.set(collection, fields);
    }
  }
  return [...byCollection].map(([collection, fields]) => ({
    collection,
    fields,
    type: 'persistent' as const,
    reason: `${collection} is read by a full scan while filtering on ${fields.join(', ')}; a persistent index on [${fields.join(', ')}] lets ArangoDB look documents up instead.`,
  }));
}
