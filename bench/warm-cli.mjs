#!/usr/bin/env node
// The warm terminal (mcpkit daemon), as whole processes from the command line, paired runs
// (A then B, N times) in one run, medians:
//   1. `retrieve search` through the daemon against ripgrep, on trees of 25k files or more
//      (and without the daemon, for reference);
//   2. `call` of an upstream tool (server-everything's echo) through the daemon against the same
//      call without it;
//   3. `call` of one server's tool with four upstreams configured and no daemon (the kept tool
//      listings start only that server) against the same call with that server alone.
//
// Usage: node bench/warm-cli.mjs [--runs N] [--settle SECONDS] [--calls-only] [--search-only] [--against DIR] [TREE...]   (needs "npm run build")
//   --against DIR: each search also without a daemon by the build in DIR (the one before), in the same turns.
//   With no TREE: a copy of this project's node_modules (with the conformance kits' beside it when
//   present) and /usr/lib, where they have 25k files or more. Needs rg (apt-get install ripgrep).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv.splice(at, 2)[1]) : fallback;
};
const runs = option('--runs', 7);
const callsOnly = argv.includes('--calls-only') && Boolean(argv.splice(argv.indexOf('--calls-only'), 1));
const settle = option('--settle', 15);
const searchOnly = argv.includes('--search-only') && Boolean(argv.splice(argv.indexOf('--search-only'), 1));
const against = argv.includes('--against') ? resolve(argv.splice(argv.indexOf('--against'), 2)[1], 'bin/run.js') : undefined;
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-bench-warm-'));
const runtimeDir = join(scratch, 'run');
mkdirSync(runtimeDir, { mode: 0o700 });
const baseEnv = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(scratch, 'xdg'), XDG_CACHE_HOME: join(scratch, 'cache'), XDG_RUNTIME_DIR: runtimeDir };
delete baseEnv.MCPKIT_CONFIG;
delete baseEnv.MCPKIT_NO_DAEMON;

const countFiles = (tree) =>
  execFileSync('rg', ['--files', '.'], { cwd: tree, maxBuffer: 1 << 30 })
    .toString()
    .split('\n')
    .filter(Boolean).length;

function defaultTrees() {
  const copy = join(scratch, 'node-modules-trees');
  for (const [from, to] of [
    [join(root, 'node_modules'), 'mcpkit'],
    [join(root, '../shared/conformance/node_modules'), 'conformance'],
    [join(root, '../shared/conformance-2026/node_modules'), 'conformance-2026'],
  ]) {
    if (existsSync(from)) cpSync(from, join(copy, to), { recursive: true });
  }
  execFileSync('sync');
  return [copy, '/usr/lib'].filter((tree) => existsSync(tree) && countFiles(tree) >= 25_000);
}

function time(cmd, args, options) {
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { ...options, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { seconds, out: r.stdout.toString() };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines = (out) => out.split('\n').filter(Boolean).length;
const mcpkit = (args, config, cwd = scratch, extra = {}) =>
  time(process.execPath, [bin, ...args], { cwd, env: { ...baseEnv, MCPKIT_CONFIG: config, ...extra } });

/** Paired runs of several commands (each once per round, in turn), after one run each to warm caches. */
function paired(commands) {
  for (const run of Object.values(commands)) run();
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) for (const [k, run] of Object.entries(commands)) samples[k].push(run().seconds);
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
}

function config(name, text) {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

const node = paired({ node: () => time(process.execPath, ['-e', '0'], {}) }).node;
console.log(`# mcpkit daemon: whole processes, median of ${runs} paired runs; node -e 0 takes ${node.toFixed(3)} s here`);

try {
  // 1. retrieve search
  const trees = callsOnly ? [] : argv.length ? argv.map((t) => resolve(t)) : defaultTrees();
  console.log('\n## retrieve search through the daemon, against rg');
  const before = against ? ' | before (no daemon) s | before ÷ rg' : '';
  console.log(
    `| tree | files | query | mcpkit (daemon) s | mcpkit (no daemon) s | rg s | daemon ÷ rg | no daemon ÷ rg${before} | matching lines (mcpkit / rg) |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|${against ? '---|---|' : ''}---|`);
  const queries = [
    ['Symbol.iterator', ['Symbol.iterator'], ['-F', 'Symbol.iterator']],
    ['createServer -i', ['createserver', '-i'], ['-i', '-F', 'createserver']],
    ['\\w+Expression\\(', ['\\w+Expression\\(', '--regex'], ['\\w+Expression\\(']],
    // A regex without a literal of three characters or more: no trigram narrows it (the issue's).
    ['[0-9]{4}-[0-9]{2}-[0-9]{2}T', ['[0-9]{4}-[0-9]{2}-[0-9]{2}T', '--regex'], ['[0-9]{4}-[0-9]{2}-[0-9]{2}T']],
  ];
  const firstSearches = [];
  trees.forEach((tree, i) => {
    const file = config(`tree-${i}`, `retrieve:\n  roots:\n    tree: ${JSON.stringify(tree)}\n`);
    // The daemon builds its roots' index as it starts (daemon/server/warm-roots.ts); a search at once
    // does the walk itself, and the searches after it run while filters are still being built.
    mcpkit(['daemon', 'start'], file);
    const first = [0, 1, 2].map(() => mcpkit(['retrieve', 'search', ...queries[0][1], '--limit', '0'], file).seconds);
    firstSearches.push(`| ${tree} | ${first.map((t) => t.toFixed(3)).join(', ')} |`);
    mcpkit(['daemon', 'stop'], file);
    mcpkit(['daemon', 'start'], file);
    execFileSync('sleep', [String(settle)]);
    const files = countFiles(tree);
    for (const [label, ours, rg] of queries) {
      const search = ['retrieve', 'search', ...ours, '--limit', '0'];
      const m = paired({
        daemon: () => mcpkit(search, file),
        cold: () => mcpkit([...search, '--no-daemon'], file),
        rg: () => time('rg', ['-n', '--no-heading', ...rg, '.'], { cwd: tree }),
        ...(against
          ? { before: () => time(process.execPath, [against, ...search, '--no-daemon'], { cwd: scratch, env: { ...baseEnv, MCPKIT_CONFIG: file } }) }
          : {}),
      });
      const then = against ? ` | ${m.before.toFixed(3)} | ${(m.before / m.rg).toFixed(2)}` : '';
      const found = `${lines(mcpkit(search, file).out)} / ${lines(time('rg', ['-n', '--no-heading', ...rg, '.'], { cwd: tree }).out)}`;
      console.log(
        `| ${tree} | ${files} | ${label} | ${m.daemon.toFixed(3)} | ${m.cold.toFixed(3)} | ${m.rg.toFixed(3)} | ${(m.daemon / m.rg).toFixed(2)} | ${(m.cold / m.rg).toFixed(2)}${then} | ${found} |`,
      );
    }
    mcpkit(['daemon', 'stop'], file);
  });
  if (firstSearches.length) {
    console.log(`\n## the first three searches right after daemon start (the table above: from ${settle} s after a start, no search before)`);
    console.log('| tree | seconds |');
    console.log('|---|---|');
    for (const row of firstSearches) console.log(row);
  }

  // 2 and 3. call of an upstream tool
  if (!searchOnly) callTables();
} finally {
  for (const name of ['tree-0', 'tree-1', 'tree-2', 'one-server']) {
    const file = join(scratch, `${name}.yaml`);
    if (existsSync(file)) spawnSync(process.execPath, [bin, 'daemon', 'stop'], { env: { ...baseEnv, MCPKIT_CONFIG: file }, stdio: 'ignore' });
  }
  rmSync(scratch, { recursive: true, force: true });
}

function callTables() {
  const server = (name) =>
    `  ${name}: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(root, `node_modules/@modelcontextprotocol/${name}/dist/index.js`))}] }\n`;
  const fsServer = `  server-filesystem: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'))}, ${JSON.stringify(scratch)}] }\n`;
  const alone = config('one-server', `mcp_servers:\n${server('server-everything')}`);
  const four = config(
    'four-servers',
    `mcp_servers:\n${server('server-everything')}${server('server-memory')}${fsServer}  everything-again: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'))}] }\n`,
  );
  console.log('\n## call of an upstream tool (server-everything echo)');
  console.log('| case | median s | ratio |');
  console.log('|---|---|---|');
  mcpkit(['daemon', 'start'], alone);
  const call = (file, name) => () => mcpkit(['call', name, 'message=hi'], file);
  const warm = paired({
    daemon: call(alone, 'server-everything__echo'),
    cold: () => mcpkit(['call', 'server-everything__echo', 'message=hi', '--no-daemon'], alone),
  });
  mcpkit(['daemon', 'stop'], alone);
  console.log(`| through the daemon | ${warm.daemon.toFixed(3)} | ${(warm.daemon / warm.cold).toFixed(2)} of the call without it |`);
  console.log(`| without a daemon, the server alone | ${warm.cold.toFixed(3)} | |`);
  mcpkit(['tools'], four); // keeps every server's listing, as any earlier command would
  const many = paired({ alone: call(alone, 'server-everything__echo'), four: call(four, 'server-everything__echo') });
  console.log(
    `| no daemon, four upstreams configured (kept listings) | ${many.four.toFixed(3)} | ${(many.four / many.alone).toFixed(2)} of the server alone (${many.alone.toFixed(3)} s) |`,
  );
}
