import type { CallToolResult } from '@modelcontextprotocol/client';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, runCli, runCommand, tempDir, THROUGH_OCLIF, type RunResult } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';

let base: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  base = tempDir('mcpkit-retrieve-');
  const files: Record<string, string | Buffer> = {
    'docs/guide.md': '# Guide\nline two\nline three\n',
    'docs/.hidden.md': 'hidden\n',
    'docs/zeta.md': 'z\n',
    'docs/Alpha.md': 'A\n',
    'code/.gitignore': 'build/\n*.log\n!keep.log\n',
    'code/src/main.ts': Array.from({ length: 50 }, (_, i) => `const line${i + 1} = ${i + 1};`).join('\n') + '\n',
    'code/build/out.js': 'built\n',
    'code/debug.log': 'noise\n',
    'code/keep.log': 'kept\n',
    'code/image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(base, path, '..'), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  writeFileSync(join(base, 'mcpkit.yaml'), 'retrieve:\n  roots:\n    docs: ./docs\n    code: ./code\n  max_file_bytes: 200\n');
  env = cleanEnv({ MCPKIT_CONFIG: join(base, 'mcpkit.yaml') });
});

const json = async (args: string[]) => {
  const r = await runCommand([...args, '--json'], { env });
  return { code: r.code, body: JSON.parse(r.stdout) as Record<string, any> };
};

describe('retrieve from the terminal', () => {
  it('ls without a path lists the roots in configured order', async () => {
    const { body } = await json(['retrieve', 'ls']);
    expect(body.result.entries.map((e: { name: string }) => e.name)).toEqual(['docs', 'code']);
    expect(body.meta).toMatchObject({ repo: null, truncated: false, duration_ms: expect.any(Number) });
  });

  it('ls sorts byte-wise and hides dotfiles and ignored files unless asked', async () => {
    const docs = await json(['retrieve', 'ls', 'docs']);
    expect(docs.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['Alpha.md', 'guide.md', 'zeta.md']);
    expect(docs.body.result.entries[1]).toEqual({ name: 'guide.md', path: 'docs/guide.md', type: 'file', size: 28 });
    const hidden = await json(['retrieve', 'ls', 'docs', '--hidden']);
    expect(hidden.body.result.entries.map((e: { name: string }) => e.name)).toContain('.hidden.md');
    const code = await json(['retrieve', 'ls', 'code']);
    expect(code.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['image.png', 'keep.log', 'src']);
    const all = await json(['retrieve', 'ls', 'code', '--ignored', '--hidden']);
    expect(all.body.result.entries.map((e: { name: string }) => e.name)).toEqual(['.gitignore', 'build', 'debug.log', 'image.png', 'keep.log', 'src']);
  });

  it('cat numbers lines; a file over max_file_bytes is cut at a whole line and marked truncated', async () => {
    const guide = await json(['retrieve', 'cat', 'docs/guide.md']);
    expect(guide.body.result).toEqual({ path: 'docs/guide.md', total_lines: 3, shown_lines: 3, content: '1\t# Guide\n2\tline two\n3\tline three' });
    expect(guide.body.meta).toMatchObject({ repo: 'docs', truncated: false });
    const big = await json(['retrieve', 'cat', 'src/main.ts']);
    expect(big.body.meta.truncated).toBe(true);
    const shown = big.body.result.content.split('\n') as string[];
    expect(shown.at(-1)).toMatch(/^\d+\tconst line\d+ = \d+;$/);
    // The true count of the whole file, and how many lines were shown.
    expect(big.body.result.total_lines).toBe(50);
    expect(big.body.result.shown_lines).toBe(shown.length);
    expect(shown.length).toBeLessThan(50);
    // In a terminal, stdout keeps the lines and stderr says they were cut and how to read on.
    const terminal = await runCommand(['retrieve', 'cat', 'src/main.ts'], { env });
    expect(terminal.stdout.trimEnd().split('\n')).toHaveLength(shown.length);
    expect(terminal.stderr).toContain(
      `showed lines 1-${shown.length} of 50 (retrieve.max_file_bytes); read on with: mcpkit retrieve snippet code/src/main.ts --start ${shown.length + 1}`,
    );
  });

  it('snippet returns a clamped range, also past max_file_bytes', async () => {
    const { body } = await json(['retrieve', 'snippet', 'docs/guide.md', '--start', '2', '--end', '99']);
    expect(body.result).toMatchObject({ start: 2, end: 3, content: '2\tline two\n3\tline three' });
    const far = await json(['retrieve', 'snippet', 'src/main.ts', '--start', '48', '--end', '99']);
    expect(far.body.result).toMatchObject({
      start: 48,
      end: 50,
      total_lines: 50,
      content: '48\tconst line48 = 48;\n49\tconst line49 = 49;\n50\tconst line50 = 50;',
    });
    const past = await runCommand(['retrieve', 'snippet', 'src/main.ts', '--start', '51', '--end', '60'], { env });
    expect(past.stderr).toContain('has 50 lines; start 51 is past the end');
  });

  it.each([
    [['retrieve', 'cat', '../mcpkit.yaml'], 1, 'PATH_OUT_OF_ROOT'],
    [['retrieve', 'cat', 'nope.md'], 1, 'FILE_NOT_FOUND'],
    [['retrieve', 'cat', 'image.png'], 1, 'FILE_BINARY'],
    [['retrieve', 'ls', 'missing'], 1, 'DIR_NOT_FOUND'],
    [['retrieve', 'ls', '--repo', 'wiki'], 2, 'REPO_INVALID'],
    [['retrieve', 'snippet', 'docs/guide.md', '--start', '3', '--end', '2'], 2, 'RANGE_INVALID'],
    [['retrieve', 'snippet', 'docs/guide.md', '--start', '9', '--end', '12'], 2, 'RANGE_INVALID'],
    [['retrieve', 'snippet', 'docs/guide.md', '--start', '0', '--end', '2'], 2, 'INVALID_INPUT'],
  ])('refuses %j (exit %i, %s)', async (args, exit, code) => {
    const r = await json(args);
    expect(r.code).toBe(exit);
    expect(r.body.error.code).toBe(code);
  });

  it('search finds lines in root order with the envelope; find lists files by glob', async () => {
    const found = await json(['retrieve', 'search', 'line', '-C', '1']);
    // code/src/main.ts is over max_file_bytes (200), which cuts open_file, not search: files of any size are searched.
    const where = found.body.result.matches.map((m: { path: string; line: number }) => `${m.path}:${m.line}`);
    expect(where).toEqual(['docs/guide.md:2', 'docs/guide.md:3', ...Array.from({ length: 50 }, (_, i) => `code/src/main.ts:${i + 1}`)]);
    expect(found.body.result.matches[0]).toMatchObject({ text: 'line two', before: ['# Guide'], after: ['line three'] });
    expect(found.body.result.skipped).toEqual({ binary: 1, path_too_long: 0, name_not_utf8: 0 }); // image.png
    const limited = await json(['retrieve', 'search', 'line', '--limit', '1']);
    expect(limited.body.meta.truncated).toBe(true);
    const regex = await json(['retrieve', 'search', '^line (two|three)$', '--regex', '--repo', 'docs']);
    expect(regex.body.result.matches.map((m: { text: string }) => m.text)).toEqual(['line two', 'line three']);
    const ci = await json(['retrieve', 'search', 'GUIDE', '-i']);
    expect(ci.body.result.matches.map((m: { path: string }) => m.path)).toEqual(['docs/guide.md']);
    const smart = await json(['retrieve', 'smart-search', 'which guide has line three']);
    expect(smart.body.result.files[0]).toMatchObject({ path: 'docs/guide.md', terms: ['guide', 'line', 'three'] });
    const files = await json(['retrieve', 'find', '**/*.md']);
    expect(files.body.result.files.map((f: { path: string }) => f.path)).toEqual(['docs/Alpha.md', 'docs/guide.md', 'docs/zeta.md']);
  });

  it.each([
    [['line', '-g', '*.md'], 0, 'docs/guide.md:2:line two\ndocs/guide.md:3:line three\n'],
    [['absent-everywhere'], 1, ''],
    [['absent-everywhere', '--json'], 1, undefined], // the JSON document still comes, with no matches
    [['-l', 'line', '-t', 'md'], 0, 'docs/guide.md\n'],
    [['-l', 'absent-everywhere'], 1, ''],
    [['-c', 'line', '-g', '*.md'], 0, 'docs/guide.md:2\n'],
    [['-c', 'absent-everywhere'], 1, ''],
    [['-v', '-c', 'x', '-g', 'guide.md'], 0, 'docs/guide.md:3\n'],
    [['-w', 'two', '-e', 'three'], undefined, undefined], // a query and -e: usage
    [['-w', '-e', 'two', '-e', 'thre'], 0, 'docs/guide.md:2:line two\n'],
    [['-t', 'typescript', 'x'], 2, ''], // rg's name is ts
  ] as [string[], number | undefined, string | undefined][])('search %j exits as rg does', async (args, code, stdout) => {
    const r = await runCommand(['retrieve', 'search', ...args], { env });
    expect(r.code, r.stderr).toBe(code ?? 2);
    if (stdout !== undefined) expect(r.stdout).toBe(stdout);
  });

  it.each([
    [['retrieve', 'search', ''], 'QUERY_EMPTY'],
    [['retrieve', 'search', 'x', '--limit', '-1'], 'LIMIT_INVALID'], // 0 is no limit (terminal only)
    [['retrieve', 'search', 'x', '-t', 'typescript'], 'INVALID_INPUT'], // rg's name is ts
    [['retrieve', 'search', 'x', '-l', '-c'], 'INVALID_INPUT'],
    [['retrieve', 'search', 'x', '-e', 'y'], 'INVALID_INPUT'], // rg would read x as a path
    [['retrieve', 'search', 'x', '--repo', 'wiki'], 'REPO_INVALID'],
    [['retrieve', 'search', '(unclosed', '--regex'], 'QUERY_INVALID'],
    [['retrieve', 'find', '  '], 'FILE_GLOB_INVALID'],
    [['retrieve', 'smart-search', ' '], 'QUERY_EMPTY'],
  ])('search/find refuse %j with %s', async (args, code) => {
    const r = await json(args);
    expect(r.code).toBe(2); // a value that does not fit is bad usage
    expect(r.body.error.code).toBe(code);
  });

  it('search --limit 0 has no limit in the terminal, printing matches as they are found', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'many.txt'), Array.from({ length: 2500 }, (_, i) => `hit ${i + 1}`).join('\n') + '\n');
    const local = cleanEnv({ CODE_ROOT: dir });
    const human = await runCommand(['retrieve', 'search', 'hit', '--limit', '0'], { env: local });
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines).toHaveLength(2500);
    expect(lines.at(-1)).toBe('code/many.txt:2500:hit 2500');
    const machine = JSON.parse((await runCommand(['retrieve', 'search', 'hit', '--limit', '0', '--json'], { env: local })).stdout);
    expect(machine.result.matches).toHaveLength(2500);
    expect(machine.meta.truncated).toBe(false);
    const capped = await runCommand(['retrieve', 'search', 'hit'], { env: local });
    expect(capped.stdout).toContain('(stopped at 200 matches; raise --limit for more, or --limit 0 for all)');
  });

  it('fails fast when a configured root is missing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mcpkit.yaml'), 'retrieve:\n  roots:\n    docs: ./not-there\n');
    const r = await runCommand(['retrieve', 'ls', '--json'], { env: cleanEnv({ MCPKIT_CONFIG: join(dir, 'mcpkit.yaml') }) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CONFIG_INVALID', details: { reason: 'ROOT_NOT_FOUND', root: 'docs' } });
  });
});

describe('the retrieve fast path (no oclif) prints exactly what oclif would', () => {
  const same = (out: string) => out.replace(/"duration_ms": \d+/g, '"duration_ms": 0');
  const lines: string[][] = [];
  // What oclif prints for every line below, run in one process (test/fixtures/oclif-lines.mjs: as
  // through-oclif.mjs runs a line, a line after another), not a process per line.
  let throughOclif: Promise<RunResult[]> | undefined;
  const oclifRuns = (): Promise<RunResult[]> =>
    (throughOclif ??= runCli([JSON.stringify(lines)], { env, entry: join(ROOT, 'test/fixtures/oclif-lines.mjs') }).then((r) => {
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as RunResult[];
    }));
  const oclifRun = async (args: string[]): Promise<RunResult> => (await oclifRuns())[lines.findIndex((l) => l.join('\0') === args.join('\0'))]!;
  const each = (cases: [string[]][]) => {
    lines.push(...cases.map(([args]) => args));
    return it.each(cases);
  };
  each([
    [['retrieve', 'search', 'line', '-C', '1', '--json']],
    [['retrieve', 'search', 'line', '-C', '1']],
    [['retrieve', 'search', '--json', 'GUIDE', '-i', '--repo=docs']],
    [['retrieve', 'search', 'line', '--limit', '1', '-g', '**/*.md', '--json']],
    [['retrieve', 'search', 'line', '-n', '1']], // not a flag here: both refuse it alike
    [['retrieve', 'search', '^line (two|three)$', '--regex', '--json']],
    [['retrieve', 'search', '--', '-not-a-flag', '--json']],
    [['retrieve', 'search', 'x', '--limit', '0', '--json']],
    [['retrieve', 'search', 'x', '--limit', '0']],
    [['retrieve', 'search', '', '--json']],
    [['retrieve', 'ls']],
    [['retrieve', 'ls', 'code', '--hidden', '--ignored', '--json']],
    [['retrieve', 'cat', 'docs/guide.md']],
    [['retrieve', 'cat', '../mcpkit.yaml', '--json']],
    [['retrieve', 'snippet', 'guide.md', '--start', '2', '--end', '9', '--json']],
    [['retrieve', 'find', '**/*.md']],
    [['retrieve', 'smart-search', 'which guide has line three', '--json']],
  ])('%j', async (args) => {
    const [fast, oclif] = await Promise.all([runCommand(args, { env }), oclifRun(args)]);
    expect(fast.code).toBe(oclif.code);
    expect(same(fast.stdout)).toBe(same(oclif.stdout));
    expect(fast.stderr).toBe(oclif.stderr);
  });

  it('a line in that one process prints what it prints through oclif in a process of its own, and through bin/run.js', async () => {
    const args = ['retrieve', 'search', 'line', '-C', '1', '--json'];
    const [own, bin, batched] = await Promise.all([runCommand(args, { env, entry: THROUGH_OCLIF }), runCli(args, { env }), oclifRun(args)]);
    for (const r of [own, bin]) {
      expect(r.code).toBe(batched.code);
      expect(same(r.stdout)).toBe(same(batched.stdout));
      expect(r.stderr).toBe(batched.stderr);
    }
  });

  it('leaves help and bad usage to oclif', async () => {
    const help = await runCommand(['retrieve', 'search', '--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('USAGE');
    const typo = await runCommand(['retrieve', 'search', 'x', '--limt', '3', '--json'], { env });
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('--limt') });
  });
});

describe('retrieve over MCP', () => {
  /** A `serve` whose root "code" is `dir`, and its search as `path: text` lines. */
  async function serveSearch(dir: string) {
    const { client } = await serveStdioInProcess({ argv: [], env: cleanEnv({ CODE_ROOT: dir }), name: 'r' });
    const found = async (query: string) => {
      const r = (await client.callTool({ name: 'search', arguments: { query } })) as CallToolResult;
      return (r.structuredContent as { result: { matches: { path: string; text: string }[] } }).result.matches.map((m) => `${m.path}: ${m.text}`);
    };
    return { client, found };
  }

  it('search inside one serve process sees files changed, added and removed between calls', async () => {
    const dir = tempDir('mcpkit-serve-index-');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/a.ts'), 'export const marker = 1;\n');
    writeFileSync(join(dir, 'src/b.ts'), 'nothing\n');
    const { client, found } = await serveSearch(dir);
    try {
      expect(await found('marker')).toEqual(['code/src/a.ts: export const marker = 1;']);
      expect(await found('marker')).toEqual(['code/src/a.ts: export const marker = 1;']);
      writeFileSync(join(dir, 'src/b.ts'), 'a marker too\n');
      writeFileSync(join(dir, 'src/c.ts'), 'marker three\n');
      rmSync(join(dir, 'src/a.ts'));
      expect(await found('marker')).toEqual(['code/src/b.ts: a marker too', 'code/src/c.ts: marker three']);
      writeFileSync(join(dir, '.gitignore'), 'c.ts\n');
      expect(await found('marker')).toEqual(['code/src/b.ts: a marker too']);
    } finally {
      await client.close();
    }
  });

  it('warm search inside serve learns of changes from the file system: an edit a stat cannot see, a new file, a deleted one, a .gitignore change', async () => {
    const dir = tempDir('mcpkit-serve-watch-');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/a.ts'), 'export const marker = 1;\n');
    writeFileSync(join(dir, 'src/b.ts'), 'nothing here\n');
    // Times an hour back: old enough for the index to trust what it remembers.
    const old = new Date(Date.now() - 3600_000);
    for (const f of ['src/a.ts', 'src/b.ts', 'src']) utimesSync(join(dir, f), old, old);
    const { client, found } = await serveSearch(dir);
    try {
      expect(await found('marker')).toEqual(['code/src/a.ts: export const marker = 1;']);
      await new Promise((r) => setTimeout(r, 1000)); // watches set up and text cached, in the background
      expect(await found('marker')).toEqual(['code/src/a.ts: export const marker = 1;']);
      // Same size, mtime and inode: only the watcher can tell.
      writeFileSync(join(dir, 'src/b.ts'), 'marker here\n');
      utimesSync(join(dir, 'src/b.ts'), old, old);
      expect(await found('marker')).toEqual(['code/src/a.ts: export const marker = 1;', 'code/src/b.ts: marker here']);
      writeFileSync(join(dir, 'src/c.ts'), 'marker three\n');
      rmSync(join(dir, 'src/a.ts'));
      expect(await found('marker')).toEqual(['code/src/b.ts: marker here', 'code/src/c.ts: marker three']);
      writeFileSync(join(dir, '.gitignore'), 'c.ts\n');
      expect(await found('marker')).toEqual(['code/src/b.ts: marker here']);
      const zero = (await client.callTool({ name: 'search', arguments: { query: 'marker', limit: 0 } })) as CallToolResult;
      expect(zero.isError).toBe(true);
      expect((zero.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'LIMIT_INVALID',
        message: expect.stringContaining('terminal'),
      });
      // The terminal takes any limit (rg has none); a model's answer stays bounded.
      const large = (await client.callTool({ name: 'search', arguments: { query: 'marker', limit: 5000 } })) as CallToolResult;
      expect((large.structuredContent as { error: { code: string } }).error.code).toBe('LIMIT_INVALID');
    } finally {
      await client.close();
    }
  });

  it('warm search of a root inside a git work tree follows the .gitignore above the root as it is edited', async () => {
    const top = tempDir('mcpkit-serve-top-');
    execFileSync('git', ['init', '-q'], { cwd: top });
    mkdirSync(join(top, 'sub'));
    writeFileSync(join(top, '.gitignore'), '*.log\n');
    writeFileSync(join(top, 'sub/a.ts'), 'marker\n');
    writeFileSync(join(top, 'sub/b.log'), 'marker in a log\n');
    // Times an hour back: old enough for the index to trust what it remembers, so only the watcher can tell.
    const old = new Date(Date.now() - 3600_000);
    for (const f of ['.gitignore', '.git/info/exclude', 'sub/a.ts', 'sub/b.log', 'sub', '.']) utimesSync(join(top, f), old, old);
    const { client, found } = await serveSearch(join(top, 'sub'));
    try {
      expect(await found('marker')).toEqual(['code/a.ts: marker']);
      await new Promise((r) => setTimeout(r, 1000)); // watches set up, in the background
      expect(await found('marker')).toEqual(['code/a.ts: marker']); // checked once more by stat, then
      expect(await found('marker')).toEqual(['code/a.ts: marker']); // only the watcher's word counts
      writeFileSync(join(top, '.gitignore'), '*.tmp\n');
      expect(await found('marker')).toEqual(['code/a.ts: marker', 'code/b.log: marker in a log']);
    } finally {
      await client.close();
    }
  });

  it('serves list_dir, open_file and get_snippet with the envelope', async () => {
    const { client } = await serveStdioInProcess({ argv: [], env, name: 'r' });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['list_dir', 'open_file', 'get_snippet']));
      const ls = (await client.callTool({ name: 'list_dir', arguments: { path: 'docs' } })) as CallToolResult;
      expect((ls.structuredContent as { meta: { repo: string } }).meta.repo).toBe('docs');
      const snippet = (await client.callTool({ name: 'get_snippet', arguments: { path: 'guide.md', start: 1, end: 1 } })) as CallToolResult;
      expect((snippet.structuredContent as { result: { content: string } }).result.content).toBe('1\t# Guide');
      const escape = (await client.callTool({ name: 'open_file', arguments: { path: '../mcpkit.yaml' } })) as CallToolResult;
      expect(escape.isError).toBe(true);
      expect((escape.structuredContent as { error: { code: string } }).error.code).toBe('PATH_OUT_OF_ROOT');
    } finally {
      await client.close();
    }
  });
});

describe('serve fails fast on a bad root', () => {
  it('exits 1 before serving, naming the root and the reason', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mcpkit.yaml'), 'retrieve:\n  roots:\n    docs: ./not-there\n');
    const r = await runCommand(['serve'], { env: cleanEnv({ MCPKIT_CONFIG: join(dir, 'mcpkit.yaml') }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Root "docs" (./not-there) does not exist');
    const viaEnv = await runCommand(['serve'], { env: cleanEnv({ DOCS_ROOT: join(dir, 'missing-too') }) });
    expect(viaEnv.code).toBe(1);
    expect(viaEnv.stderr).toContain('Root "docs" ($DOCS_ROOT) does not exist');
  });
});
