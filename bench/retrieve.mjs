#!/usr/bin/env node
// Search speed on real third-party code: this project's node_modules copied to a temp dir and
// `git init`-ed (with a .gitignore), searched by whole processes in one run: mcpkit, git grep,
// and ripgrep when `rg` is on the PATH (apt-get install ripgrep). Wall time is the median of N
// runs; peak memory (max RSS) comes from /usr/bin/time.
// Then the same searches repeated inside one `mcpkit serve` process (the SDK client over stdio),
// where the walked file list and per-file trigram filters are kept between calls.
// Usage: node bench/retrieve.mjs [runs=5]   (needs "npm run build" first)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const workDir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-tree-'));
const tree = join(workDir, 'tree');
cpSync(join(root, 'node_modules'), tree, { recursive: true, dereference: false });
writeFileSync(join(tree, '.gitignore'), '*.map\n.bin/\n');
execFileSync('git', ['init', '-q'], { cwd: tree });
execFileSync('sync'); // let the copy's writeback finish before anything is timed
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

// Inside one serve process: the first call walks and builds the index, the next ones reuse it
// (every folder and file is still stat-ed per call, so edits show at once).
const serveRuns = Math.max(runs, 5);
const client = new Client({ name: 'bench', version: '1' });
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'serve'], env, cwd: tree, stderr: 'inherit' });
await client.connect(transport);
const calls = [
  ['literal "createServer("', 'search', { query: 'createServer(', limit: 1000 }, ['-n', '-F', 'createServer(', '.']],
  ['regex "\\w+Expression\\("', 'search', { query: '\\w+Expression\\(', regex: true, limit: 1000 }, ['-n', '\\w+Expression\\(', '.']],
  ['literal -i "createserver"', 'search', { query: 'createserver', ignore_case: true, limit: 1000 }, ['-n', '-i', '-F', 'createserver', '.']],
  ['find "**/*.ts"', 'find_files', { glob: '**/*.ts', limit: 10000 }, ['--files', '-g', '*.ts', '.']],
  ['smart_search (question)', 'smart_search', { query: 'how does the stdio transport close' }, undefined],
];
console.log(`\nInside one \`mcpkit serve\` (MCP tools/call round trip), median of ${serveRuns} calls after the first (and a 1.5 s pause)`);
console.log('| case | first call s | repeated s | rg s (cold process) | repeated ÷ rg |');
console.log('|---|---|---|---|---|');
for (const [label, name, args, rgArgs] of calls) {
  const times = [];
  for (let i = 0; i <= serveRuns; i++) {
    const started = performance.now();
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
    times.push((performance.now() - started) / 1000);
    // Filters are built in the background after a first read; an agent's calls come seconds apart.
    if (i === 0) await new Promise((resolve) => setTimeout(resolve, 1500));
  }
  const repeated = median(times.slice(1));
  const rg = hasRg && rgArgs ? median(Array.from({ length: runs }, () => measure('rg', rgArgs, tree).wall)) : undefined;
  console.log(`| ${label} | ${times[0].toFixed(2)} | ${repeated.toFixed(3)} | ${rg === undefined ? '' : rg.toFixed(2)} | ${rg === undefined ? '' : (repeated / Math.max(rg, 0.01)).toFixed(2)} |`);
}
const peak = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, 'utf8'))?.[1];
console.log(`\nserve peak RSS after all calls: ${(Number(peak) / 1024).toFixed(0)} MB`);
await client.close();
if (!hasRg) console.log('\n(ripgrep not on the PATH: apt-get install ripgrep to add its rows)');
rmSync(workDir, { recursive: true, force: true });
