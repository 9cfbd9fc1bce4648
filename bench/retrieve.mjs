#!/usr/bin/env node
// Search speed on real third-party code: this project's node_modules copied to a temp dir and
// `git init`-ed (with a .gitignore), searched by whole processes in one run: mcpkit, git grep,
// and ripgrep when `rg` is on the PATH (apt-get install ripgrep). Wall time is the median of N
// runs; peak memory (max RSS) comes from /usr/bin/time.
// Usage: node bench/retrieve.mjs [runs=5]   (needs "npm run build" first)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const tree = join(mkdtempSync(join(tmpdir(), 'mcpkit-bench-tree-')), 'tree');
cpSync(join(root, 'node_modules'), tree, { recursive: true, dereference: false });
writeFileSync(join(tree, '.gitignore'), '*.map\n.bin/\n');
execFileSync('git', ['init', '-q'], { cwd: tree });
const files = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: tree, maxBuffer: 1 << 28 }).toString().split('\n').filter(Boolean);
const bytes = Number(execFileSync('du', ['-sb', tree]).toString().split('\t')[0]);
const env = { ...process.env, CODE_ROOT: tree, NO_COLOR: '1', XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'x-')) };
delete env.MCPKIT_CONFIG;
const hasRg = spawnSync('rg', ['--version']).status === 0;

function measure(cmd, args, cwd) {
  // stdin closed: with a pipe there, rg would search stdin instead of the tree.
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { cwd, env, maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  const [wall, kb] = r.stderr.toString().trim().split('\n').at(-1).split(' ').map(Number);
  return { wall, mb: kb / 1024, out: r.stdout.toString() };
}

const cases = [
  ['literal "createServer("', [
    ['mcpkit search', process.execPath, [bin, 'retrieve', 'search', 'createServer(', '--limit', '1000', '--json']],
    ['git grep -F', 'git', ['grep', '-n', '-I', '--untracked', '-F', 'createServer(']],
    ...(hasRg ? [['rg -F', 'rg', ['-n', '-F', 'createServer(', '.']]] : []),
  ]],
  ['regex "\\w+Expression\\("', [
    ['mcpkit search --regex', process.execPath, [bin, 'retrieve', 'search', '\\w+Expression\\(', '--regex', '--limit', '1000', '--json']],
    ['git grep -E', 'git', ['grep', '-n', '-I', '--untracked', '-E', '[[:alnum:]_]+Expression\\(']],
    ...(hasRg ? [['rg', 'rg', ['-n', '\\w+Expression\\(', '.']]] : []),
  ]],
  ['find "**/*.ts"', [
    ['mcpkit find_files', process.execPath, [bin, 'retrieve', 'find', '**/*.ts', '--limit', '10000', '--json']],
    ['git ls-files', 'git', ['ls-files', '--others', '--exclude-standard', '--', '*.ts']],
    ...(hasRg ? [['rg --files -g', 'rg', ['--files', '-g', '*.ts', '.']]] : []),
  ]],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`retrieve: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB (node_modules copy, git-initialised), median of ${runs} runs`);
console.log('| case | tool | wall s | × fastest other | max RSS MB |');
console.log('|---|---|---|---|---|');
for (const [label, tools] of cases) {
  const rows = tools.map(([name, cmd, args]) => {
    measure(cmd, args, tree); // warm the page cache
    const samples = Array.from({ length: runs }, () => measure(cmd, args, tree));
    return { name, wall: median(samples.map((s) => s.wall)), mb: Math.max(...samples.map((s) => s.mb)) };
  });
  const best = Math.max(0.01, Math.min(...rows.filter((r) => !r.name.startsWith('mcpkit')).map((r) => r.wall)));
  for (const r of rows) console.log(`| ${label} | ${r.name} | ${r.wall.toFixed(2)} | ${r.name.startsWith('mcpkit') ? (r.wall / best).toFixed(2) : ''} | ${r.mb.toFixed(0)} |`);
}
if (!hasRg) console.log('\n(ripgrep not on the PATH: apt-get install ripgrep to add its rows)');
