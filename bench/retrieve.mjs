#!/usr/bin/env node
// Search speed on large real trees, as whole processes from the command line (start-up included):
// mcpkit `retrieve search`, ripgrep (apt-get install ripgrep) and git grep, paired in one run, with
// mcpkit's time as a ratio to each; the match counts are compared too. Then the same searches
// repeated inside one `mcpkit serve` (the SDK client over stdio), where walked lists and file
// text are kept between calls and changes are learned from inotify watches.
//
// Usage: node bench/retrieve.mjs [--runs N] [TREE...]   (needs "npm run build" first)
//   With no TREE: a copy of this project's node_modules, git-initialised, with a .gitignore.
//   A TREE given by path is searched as it is (git grep only where it is a git work tree), e.g.
//   a checkout of a public repository or packages installed from npm into a scratch folder.
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv.splice(runsAt, 2)[1]) : 5;
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-bench-tree-'));
const hasRg = spawnSync('rg', ['--version']).status === 0;

function defaultTree() {
  const tree = join(scratch, 'node_modules-copy');
  cpSync(join(root, 'node_modules'), tree, { recursive: true, dereference: false });
  writeFileSync(join(tree, '.gitignore'), '*.map\n.bin/\n');
  execFileSync('git', ['init', '-q'], { cwd: tree });
  execFileSync('sync'); // let the copy's writeback finish before anything is timed
  return tree;
}

const trees = argv.length ? argv.map((t) => resolve(t)) : [defaultTree()];
const baseEnv = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: scratch };
delete baseEnv.MCPKIT_CONFIG;

function measure(cmd, args, cwd, env) {
  // stdin closed: with a pipe there, rg would search stdin instead of the tree.
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', cmd, ...args], { cwd, env, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  const [wall, kb] = r.stderr.toString().trim().split('\n').at(-1).split(' ').map(Number);
  return { wall, mb: kb / 1024, out: r.stdout.toString() };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines = (out) => out.split('\n').filter(Boolean).length;

const cases = [
  ['literal "Symbol.iterator"', ['Symbol.iterator'], ['-F', 'Symbol.iterator'], ['-F', 'Symbol.iterator']],
  ['literal -i "createserver"', ['createserver', '-i'], ['-i', '-F', 'createserver'], ['-i', '-F', 'createserver']],
  ['regex "\\w+Expression\\("', ['\\w+Expression\\(', '--regex'], ['\\w+Expression\\('], ['-E', '[[:alnum:]_]+Expression\\(']],
];

for (const tree of trees) {
  const env = { ...baseEnv, CODE_ROOT: tree };
  const isGit = existsSync(join(tree, '.git'));
  const files = hasRg ? lines(execFileSync('rg', ['--files', '.'], { cwd: tree, maxBuffer: 1 << 30 }).toString()) : NaN;
  console.log(`\n## ${tree}: ${files} files searched by rg; median of ${runs} runs, whole processes`);
  console.log('| case | tool | wall s | mcpkit ÷ this | matching lines | max RSS MB |');
  console.log('|---|---|---|---|---|---|');
  for (const [label, ours, rg, git] of cases) {
    const tools = [
      ['mcpkit', process.execPath, [bin, 'retrieve', 'search', ...ours, '--limit', '0']],
      ...(hasRg ? [['rg', 'rg', ['-n', '--no-heading', ...rg, '.']]] : []),
      ...(isGit ? [['git grep', 'git', ['grep', '-n', '-I', '--untracked', '--exclude-standard', ...git]]] : []),
    ];
    const rows = tools.map(([name, cmd, args]) => {
      measure(cmd, args, tree, env); // warm the page cache
      const samples = Array.from({ length: runs }, () => measure(cmd, args, tree, env));
      return { name, wall: median(samples.map((s) => s.wall)), mb: Math.max(...samples.map((s) => s.mb)), found: lines(samples[0].out) };
    });
    const ours_ = rows[0];
    for (const r of rows) {
      const ratio = r === ours_ ? '' : (ours_.wall / Math.max(r.wall, 0.01)).toFixed(2);
      console.log(`| ${label} | ${r.name} | ${r.wall.toFixed(2)} | ${ratio} | ${r.found} | ${r.mb.toFixed(0)} |`);
    }
  }

  // Inside one serve process: the first call walks and reads; watches and the text cache are set
  // up in the background; then the same search repeated.
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve'], env, cwd: tree, stderr: 'inherit' });
  await client.connect(transport);
  console.log(
    `\nInside one \`mcpkit serve\` (MCP tools/call round trip through the SDK client), median of ${Math.max(runs, 9)} calls after the first and a 5 s pause`,
  );
  console.log('| case | first call s | repeated ms |');
  console.log('|---|---|---|');
  for (const [label, args] of [
    ['literal "Symbol.iterator"', { query: 'Symbol.iterator', limit: 1000 }],
    ['literal -i "createserver"', { query: 'createserver', ignore_case: true, limit: 1000 }],
    ['regex "\\w+Expression\\("', { query: '\\w+Expression\\(', regex: true, limit: 1000 }],
  ]) {
    const times = [];
    for (let i = 0; i <= Math.max(runs, 9); i++) {
      const started = performance.now();
      const r = await client.callTool({ name: 'search', arguments: args });
      if (r.isError) throw new Error(`search: ${r.content[0].text}`);
      times.push(performance.now() - started);
      if (i === 0) await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    console.log(`| ${label} | ${(times[0] / 1000).toFixed(2)} | ${median(times.slice(1)).toFixed(0)} |`);
  }
  const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
  const mb = (key) => (Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]) / 1024).toFixed(0);
  console.log(`\nserve memory after these calls: RSS ${mb('VmRSS')} MB, peak ${mb('VmHWM')} MB (file text kept: at most 128 MiB)`);
  await client.close();
}
if (!hasRg) console.log('\n(ripgrep not on the PATH: apt-get install ripgrep to add its rows)');
rmSync(scratch, { recursive: true, force: true });
