import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { ConfigProblem } from './problems.js';

/*
 * A config file's YAML as plain data, on its own: the schema and its checks (./check.ts) are not
 * loaded by what reads only the names a file gives (tab completion, config/as-written.ts).
 */

export function parseYaml(text: string): { doc: Document; problems: ConfigProblem[] } {
  // The yaml library's own duplicate-key check compares every key with every other (6 s of 7 at
  // 32,000 servers here); a set per mapping does the same in one pass.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter });
  const problems = doc.errors.map((e) => ({
    path: e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '(yaml)',
    // The path says where; the library's first line ends by saying it again, with a colon for the excerpt it leaves out here.
    message: e.message.split('\n', 1)[0]!.replace(/ at line \d+, column \d+:?\s*$/, ''),
  }));
  if (problems.length === 0) problems.push(...duplicateKeys(doc, lineCounter));
  return { doc, problems };
}

/** Keys that appear twice in one mapping, each as "line L, column C: Map keys must be unique". */
function duplicateKeys(doc: Document, lines: LineCounter): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  visit(doc, {
    Map: (_key, map) => {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          const at = isScalar(pair.key) && pair.key.range ? lines.linePos(pair.key.range[0]) : undefined;
          problems.push({ path: at ? `line ${at.line}, column ${at.col}` : '(yaml)', message: `Map keys must be unique ("${String(key)}" appears twice)` });
        }
        seen.add(key);
      }
    },
  });
  return problems;
}

/** The document's content as plain data; an empty file is an empty config. */
export function documentData(doc: Document): { data: Record<string, unknown>; problems: ConfigProblem[] } {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // An alias bomb ("billion laughs") is stopped by maxAliasCount: a problem with the file, not a bug.
    return { data: {}, problems: [{ path: '(yaml)', message: `${(error as Error).message} (too many or too deep aliases)` }] };
  }
  if (data === null || data === undefined) return { data: {}, problems: [] };
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { data: {}, problems: [{ path: '(root)', message: 'the config must be a YAML mapping (key: value), not a list or a scalar' }] };
  }
  return { data: data as Record<string, unknown>, problems: [] };
}

/** The YAML of a config file as plain data, or what is wrong with it as YAML. */
export function configData(text: string): { raw: Record<string, unknown> } | { problems: ConfigProblem[] } {
  const { doc, problems: yamlProblems } = parseYaml(text);
  if (yamlProblems.length) return { problems: yamlProblems };
  const { data: raw, problems: shapeProblems } = documentData(doc);
  return shapeProblems.length ? { problems: shapeProblems } : { raw };
}
