import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ts, type TypeScript } from '../helpers/typescript.js';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';
import { sourceFiles } from '../helpers/source-files.js';

/**
 * One verb per act, with docs/ARCHITECTURE.md's vocabulary table as the source of truth: a row
 * whose word is one lowercase word reserves that word for the methods its cell names
 * (`Holder.word`). A class method or a function in src/ named exactly that word, and not named
 * by the row, uses the word for another act (a router's `dispatch`, a read's `forward` once did),
 * and fails here. Read from the code's syntax tree, not its text.
 */

interface Row {
  word: string;
  /** The `Holder.word` the row names. */
  holders: ReadonlySet<string>;
}

/** The vocabulary's rows, from the page's table under "## Vocabulary". Pure. */
export function vocabularyRows(page: string): Row[] {
  const start = page.indexOf('\n## Vocabulary');
  const end = page.indexOf('\n## ', start + 1);
  const table = page
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| '));
  return table.slice(1).flatMap((line) => {
    const [word = '', means = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    if (!/^[a-z]+$/.test(word)) return [];
    const holders = [...means.matchAll(/`([A-Z]\w*)\.(\w+)`/g)].filter((m) => m[2] === word).map((m) => `${m[1]}.${m[2]}`);
    return [{ word, holders: new Set(holders) }];
  });
}

/** The named things a source declares: `Class.method` for a class's methods, the bare name for a function. Pure. */
export function declaredNames(file: string, text: string): string[] {
  const out: string[] = [];
  const visit = (node: TypeScript.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      for (const member of node.members) {
        if (ts.isMethodDeclaration(member) && ts.isIdentifier(member.name)) out.push(`${node.name.text}.${member.name.text}`);
      }
    }
    if (ts.isFunctionDeclaration(node) && node.name) out.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return out;
}

/** What uses a reserved word for another act: `where: name (word)`. Pure. */
export function breaches(rows: readonly Row[], declared: readonly { where: string; names: readonly string[] }[]): string[] {
  const byWord = new Map(rows.map((row) => [row.word, row]));
  return declared.flatMap(({ where, names }) =>
    names.flatMap((name) => {
      const word = name.includes('.') ? name.slice(name.indexOf('.') + 1) : name;
      const row = byWord.get(word);
      return row && !row.holders.has(name) ? [`${where}: ${name} (the table keeps "${word}" for ${[...row.holders].join(', ') || 'none'})`] : [];
    }),
  );
}

const PAGE = `
## Vocabulary

| word | means | where |
|---|---|---|
| client | the MCP client software at the other end | |
| dispatch | answer one downstream request (\`Dispatcher\`, its method table) | |
| forward | the hot path's call: \`Upstream.forward\`, \`RawForwarder.forward\` | |
| hot path | a call forwarded below the SDK | |

## Where state lives
`;

describe('the vocabulary rule', () => {
  it('reads the reserved words and who holds them', () => {
    expect(vocabularyRows(PAGE).map((r) => [r.word, [...r.holders]])).toEqual([
      ['client', []],
      ['dispatch', []],
      ['forward', ['Upstream.forward', 'RawForwarder.forward']],
    ]);
  });

  it.each([
    ['a holder the row names', 'class Upstream { forward() {} }', []],
    [
      'a method using the word for another act',
      'class ReadThrough { forward() {} }',
      ['f.ts: ReadThrough.forward (the table keeps "forward" for Upstream.forward, RawForwarder.forward)'],
    ],
    [
      'a word the table keeps for none',
      'class CallRouter { private async dispatch() {} }',
      ['f.ts: CallRouter.dispatch (the table keeps "dispatch" for none)'],
    ],
    ['a function of that name', 'export function dispatch() {}', ['f.ts: dispatch (the table keeps "dispatch" for none)']],
    ['a longer name that starts with the word', 'class CallRouter { dispatchLater() {} forwarded() {} }', []],
    ['a property, not a method', 'class Carrier { forward = () => {} }', []],
    ['a word of no row', 'class A { run() {} }', []],
  ])('%s', (_label, code, expected) => {
    expect(breaches(vocabularyRows(PAGE), [{ where: 'f.ts', names: declaredNames('f.ts', code) }])).toEqual(expected);
  });
});

describe('src/ speaks the vocabulary of docs/ARCHITECTURE.md', () => {
  it('uses each reserved word for its act only', () => {
    const rows = vocabularyRows(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
    expect(rows.map((r) => r.word)).toEqual(expect.arrayContaining(['call', 'dispatch', 'forward', 'send', 'find']));
    const declared = sourceFiles(join(ROOT, 'src')).map((file) => ({ where: relative(ROOT, file), names: declaredNames(file, readFileSync(file, 'utf8')) }));
    expect(breaches(rows, declared)).toEqual([]);
  });
});
