/**
 * Whether an AQL query writes: a data-modification keyword (INSERT, UPDATE, REPLACE, REMOVE,
 * UPSERT) outside strings, quoted names, bind parameters, attribute accesses and comments. Used
 * by read-only mode; the server's own parser remains the authority on what a query does. Pure.
 */
const WRITES = new Set(['INSERT', 'UPDATE', 'REPLACE', 'REMOVE', 'UPSERT']);

export function writingKeywords(query: string): string[] {
  const found: string[] = [];
  let i = 0;
  let previous = '';
  while (i < query.length) {
    const c = query[i]!;
    if (c === '"' || c === "'" || c === '`' || c === '´') {
      i++;
      while (i < query.length && query[i] !== c) i += query[i] === '\\' ? 2 : 1;
      i++;
      previous = 'value';
      continue;
    }
    if (query.startsWith('//', i)) {
      while (i < query.length && query[i] !== '\n') i++;
      continue;
    }
    if (query.startsWith('/*', i)) {
      const end = query.indexOf('*/', i + 2);
      i = end < 0 ? query.length : end + 2;
      continue;
    }
    if (/[A-Za-z_@]/.test(c)) {
      // A lone `@` (as in `RETURN @ x`) is no bind parameter: the server reports the syntax error.
      const word = /^@{0,2}[A-Za-z0-9_]*/.exec(query.slice(i))![0];
      if (word.replace(/^@+/, '') === '') {
        i += word.length;
        previous = c;
        continue;
      }
      // `doc.update` is an attribute and `@insert` a bind parameter, not statements.
      if (!word.startsWith('@') && previous !== '.' && WRITES.has(word.toUpperCase())) found.push(word.toUpperCase());
      i += word.length;
      previous = 'word';
      continue;
    }
    if (!/\s/.test(c)) previous = c;
    i++;
  }
  return [...new Set(found)];
}
