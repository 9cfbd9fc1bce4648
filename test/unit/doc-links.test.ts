import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainLine, plainWords, standIn } from '../helpers/doc-stand-ins.js';
import { ROOT } from '../helpers/root.js';

/**
 * The docs a user reads point where they say: every relative link of the README, the guide and
 * the pages beside them names a file that exists, and a `#anchor` a heading of that file (as
 * GitHub makes its anchors). And the doc tests' own parts: which lines a test runs in its own
 * process, and what stands in for the network.
 */

const DOCS = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'docs/SECURITY.md', ...readdirSync(join(ROOT, 'docs/guide')).map((f) => `docs/guide/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. Pure. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('links between the docs', () => {
  it.each(DOCS)('%s: every relative link names a file and heading that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const file = path ? join(ROOT, dirname(doc), path) : join(ROOT, doc);
      if (!existsSync(file)) broken.push(`${target}: no file ${relative(ROOT, file)}`);
      else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${target}: no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it.each([
    ['Quick start', 'quick-start'],
    ["A team's gateway: named clients, rules and limits", 'a-teams-gateway-named-clients-rules-and-limits'],
    ['`server scan`: what the lock approves', 'server-scan-what-the-lock-approves'],
  ])('the anchor of "%s" is %s', (heading, anchor) => expect(anchorOf(heading)).toBe(anchor));
});

describe('plainWords: a line a shell would pass on unchanged, as words', () => {
  const table: [string, string, string[] | undefined][] = [
    ['plain words', 'mcpkit call everything__echo message=hi', ['mcpkit', 'call', 'everything__echo', 'message=hi']],
    [
      'quotes kept whole',
      `mcpkit view create demo --description "Echo and sums" --args '{"a": 1}'`,
      ['mcpkit', 'view', 'create', 'demo', '--description', 'Echo and sums', '--args', '{"a": 1}'],
    ],
    ['${VAR} in single quotes is text', `mcpkit clients set a --credential 'x.Y=\${TOKEN}'`, ['mcpkit', 'clients', 'set', 'a', '--credential', 'x.Y=${TOKEN}']],
    ['a redirection is the shell', 'mcpkit config schema > s.json', undefined],
    ['a pipe is the shell', 'printf x | mcpkit secret set a', undefined],
    ['an expansion is the shell', 'mcpkit gateway status "$GATEWAY_URL"', undefined],
    ['a tilde is the shell', 'mcpkit server import ~/.claude.json', undefined],
    ['an unquoted glob is the shell', 'mcpkit retrieve find *.md', undefined],
    ['a variable before the command is the shell', 'MCPKIT_TOKEN=x mcpkit gateway status', undefined],
  ];
  it.each(table)('%s', (_, line, words) => expect(plainWords(line)).toEqual(words));
});

describe('plainLine: the words, a leading ~/ and a last > FILE as the shell reads them', () => {
  const table: [string, string, ReturnType<typeof plainLine>][] = [
    ['a comment after one space', 'mcpkit retrieve cat docs/A.md # numbered lines', { words: ['mcpkit', 'retrieve', 'cat', 'docs/A.md'] }],
    ['a # inside a word is no comment: the shell', 'mcpkit retrieve find a#b', undefined],
    ['a # in quotes is text', `mcpkit retrieve search '# x'`, { words: ['mcpkit', 'retrieve', 'search', '# x'] }],
    [
      'a backslash in double quotes kept',
      String.raw`mcpkit retrieve search "new \w+Error\(" --regex`,
      { words: ['mcpkit', 'retrieve', 'search', String.raw`new \w+Error\(`, '--regex'] },
    ],
    ['an escaped quote in double quotes is the shell', String.raw`mcpkit call x "a\"b"`, undefined],
    ['a leading ~/ is home', 'mcpkit server import ~/.claude.json', { words: ['mcpkit', 'server', 'import', '/home/u/.claude.json'] }],
    ['a ~ not leading is the shell', 'mcpkit server import a~/b', undefined],
    ['~user is the shell', 'mcpkit server import ~root/x', undefined],
    ['a quoted ~/ is text', `mcpkit server import '~/x'`, { words: ['mcpkit', 'server', 'import', '~/x'] }],
    ['a last > FILE', 'mcpkit config schema > s.json', { words: ['mcpkit', 'config', 'schema'], stdoutTo: 's.json' }],
    ['> FILE then a comment', 'mcpkit code types --view w > t.d.ts  # declarations', { words: ['mcpkit', 'code', 'types', '--view', 'w'], stdoutTo: 't.d.ts' }],
    ['>FILE written together', 'mcpkit config schema >s.json', { words: ['mcpkit', 'config', 'schema'], stdoutTo: 's.json' }],
    ['a word after the file is the shell', 'mcpkit config schema > s.json --json', undefined],
    ['>> is the shell', 'mcpkit config schema >> s.json', undefined],
    ['2> is the shell', 'mcpkit config schema 2> e.txt', undefined],
    ['> with no file is the shell', 'mcpkit config schema >', undefined],
    ['a redirection first is the shell', '> s.json mcpkit config schema', undefined],
    ['a pipe after the file is the shell', 'mcpkit config schema > s.json | cat', undefined],
  ];
  it.each(table)('%s', (_, line, expected) => expect(plainLine(line, '/home/u')).toEqual(expected));
});

describe('standIn: what runs instead of the network', () => {
  const s = { github: 'http://127.0.0.1:1/mcp', linear: 'http://127.0.0.1:2/mcp', registry: 'http://127.0.0.1:3', arango: 'http://127.0.0.1:4' };
  it.each([
    [
      'npx after --',
      'mcpkit server add e -- npx -y @modelcontextprotocol/server-everything',
      /^mcpkit server add e -- \S+node\S* \S+server-everything\S* stdio$/,
    ],
    [
      'npx as --command/--arg',
      'mcpkit server add m --command npx --arg -y --arg @modelcontextprotocol/server-memory',
      /^mcpkit server add m --command \S+ --arg \S+server-memory\S*$/,
    ],
    ['GitHub', 'mcpkit server add github --url https://api.githubcopilot.com/mcp/', /--url http:\/\/127\.0\.0\.1:1\/mcp$/],
    ['a registry by URL', 'mcpkit registry list --registry https://registry.example.com', /--registry http:\/\/127\.0\.0\.1:3$/],
    ['ArangoDB', 'export ARANGO_URL=http://localhost:8529 ARANGO_PASSWORD=mcpkit', /^export ARANGO_URL=http:\/\/127\.0\.0\.1:4 ARANGO_PASSWORD=mcpkit$/],
  ])('%s', (_, line, expected) => expect(standIn(line, s)).toMatch(expected));
});
