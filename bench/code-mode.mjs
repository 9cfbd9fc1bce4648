#!/usr/bin/env node
// The tokens that pass through an agent's context for multi-step tasks, with direct exposure (the
// whole tools/list, then every call and its result) against code mode (its three-tool listing, one
// search's declarations, the script, and its result). Both run for real against mcpkit serve over
// stdio, the SDK client, and server-everything, server-memory and server-filesystem; tokens are
// counted with gpt-tokenizer (o200k_base), on the JSON an agent's runtime puts in the context.
// Usage: node bench/code-mode.mjs   (needs "npm run build" first)
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const work = mkdtempSync(join(tmpdir(), 'mcpkit-bench-code-'));
const files = join(work, 'files');
const bigFiles = join(work, 'big');
/** A folder of `dirs` sub-folders with `each` files, of known sizes; their total. */
function folder(at, dirs, each) {
  let bytes = 0;
  for (let d = 0; d < dirs; d++) {
    mkdirSync(join(at, `part${d}`), { recursive: true });
    for (let f = 0; f < each; f++) {
      const text = 'x'.repeat(100 * ((d % 4) + 1) + f * 7);
      bytes += text.length;
      writeFileSync(join(at, `part${d}`, `file${f}.txt`), text);
    }
  }
  return bytes;
}
const expectedBytes = folder(files, 4, 10);
const bigBytes = folder(bigFiles, 10, 20);
const server = (pkg, ...args) => ({ command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), ...args] });
const config = join(work, 'mcpkit.yaml');
const env = { ...process.env, XDG_CONFIG_HOME: work, XDG_STATE_HOME: work, XDG_CACHE_HOME: work, MCPKIT_NO_DAEMON: '1' };
delete env.MCPKIT_CONFIG;

const tokens = (value) => countTokens(typeof value === 'string' ? value : JSON.stringify(value));

async function connect(exposure, memoryFile) {
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: {
        everything: server('server-everything', 'stdio'),
        memory: { ...server('server-memory'), env: { MEMORY_FILE_PATH: memoryFile } },
        filesystem: server('server-filesystem', work),
      },
      tool_views: { work: { servers: ['everything', 'memory', 'filesystem'], exposure } },
    }),
  );
  const client = new Client({ name: 'bench-code', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'serve', '--config', config, '--view', 'work'], env, cwd: work, stderr: 'ignore' }),
  );
  return client;
}

/** An agent's context: what it was shown (the listing), and every call it made with what came back. */
function context(client) {
  let count = 0;
  return {
    async list() {
      const listed = await client.listTools();
      count += tokens(listed);
      return listed;
    },
    async call(name, args) {
      count += tokens({ name, arguments: args });
      const result = await client.callTool({ name, arguments: args });
      count += tokens(result.content);
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result;
    },
    get tokens() {
      return count;
    },
  };
}

const text = (result) => result.content.map((c) => c.text ?? '').join('\n');
const TYPES = ['person', 'place', 'thing'];
const entities = Array.from({ length: 30 }, (_, i) => ({ name: `entity${i}`, entityType: TYPES[i % 3], observations: [`note ${i}`] }));
const pairs = Array.from({ length: 20 }, (_, i) => [i, i * 2]);

function sizesTask(files, answer, count) {
  return {
    task: `sum the sizes of the ${count} files under a folder (server-filesystem)`,
    answer,
    async direct(ctx) {
      const top = text(await ctx.call('filesystem__list_directory', { path: files }));
      const dirs = [...top.matchAll(/\[DIR\] (\S+)/g)].map((m) => m[1]);
      let total = 0;
      for (const dir of dirs) {
        const listing = text(await ctx.call('filesystem__list_directory_with_sizes', { path: join(files, dir) }));
        for (const m of listing.matchAll(/\[FILE\]\s+\S+\s+([\d.]+) (B|KB)/g)) total += m[2] === 'KB' ? Math.round(Number(m[1]) * 1024) : Number(m[1]);
      }
      return total;
    },
    search: 'list a directory with file sizes',
    code: `const dir = ${JSON.stringify(files)};
const top = (await tools.filesystem.list_directory({ path: dir })).content;
const subs = top.split('\\n').filter((l) => l.startsWith('[DIR]')).map((l) => l.slice(6));
const lists = await Promise.all(subs.map((d) => tools.filesystem.list_directory_with_sizes({ path: dir + '/' + d })));
let total = 0;
for (const l of lists) for (const m of l.content.matchAll(/\\[FILE\\].*?([\\d.]+) (B|KB)/g)) total += m[2] === 'KB' ? Math.round(m[1] * 1024) : +m[1];
return total;`,
  };
}

const tasks = [
  {
    task: 'create 30 entities, count those of one type (server-memory)',
    answer: 10,
    async direct(ctx) {
      await ctx.call('memory__create_entities', { entities });
      const graph = JSON.parse(text(await ctx.call('memory__read_graph', {})));
      return graph.entities.filter((e) => e.entityType === 'person').length;
    },
    search: 'create entities and read the knowledge graph',
    code: `const types = ['person', 'place', 'thing'];
await tools.memory.create_entities({ entities: Array.from({ length: 30 }, (_, i) => ({ name: 'entity' + i, entityType: types[i % 3], observations: ['note ' + i] })) });
const graph = await tools.memory.read_graph();
return graph.entities.filter((e) => e.entityType === 'person').length;`,
  },
  sizesTask(files, expectedBytes, 40),
  sizesTask(bigFiles, bigBytes, 200),
  {
    task: 'add 20 pairs of numbers and total them (server-everything)',
    answer: pairs.reduce((n, [a, b]) => n + a + b, 0),
    async direct(ctx) {
      let total = 0;
      for (const [a, b] of pairs) total += Number(/is (-?\d+)/.exec(text(await ctx.call('everything__get-sum', { a, b })))[1]);
      return total;
    },
    search: 'add two numbers',
    code: `const pairs = Array.from({ length: 20 }, (_, i) => [i, i * 2]);
const sums = await Promise.all(pairs.map(([a, b]) => tools.everything['get-sum']({ a, b })));
return sums.reduce((n, s) => n + Number(/is (-?\\d+)/.exec(s)[1]), 0);`,
  },
];

const rows = [];
for (const [i, t] of tasks.entries()) {
  const direct = context(await connect('direct', join(work, `direct-${i}.json`)));
  await direct.list();
  const directAnswer = await t.direct(direct);
  const code = context(await connect('code', join(work, `code-${i}.json`)));
  await code.list();
  await code.call('work_search_tools', { query: t.search, limit: 2 });
  const ran = await code.call('work_run_code', { code: t.code });
  const codeAnswer = ran.structuredContent.result;
  rows.push({
    task: t.task,
    direct: direct.tokens,
    code: code.tokens,
    ok: directAnswer === t.answer && codeAnswer === t.answer,
    answers: [directAnswer, codeAnswer, t.answer],
  });
}

console.log(
  `tokens through an agent's context (gpt-tokenizer, o200k_base), direct exposure vs code mode (node ${process.version}, ${new Date().toISOString().slice(0, 10)})`,
);
console.log('| task | direct | code mode | saved | same answer |');
console.log('|---|---|---|---|---|');
for (const r of rows)
  console.log(`| ${r.task} | ${r.direct} | ${r.code} | ${((1 - r.code / r.direct) * 100).toFixed(1)}% | ${r.ok ? 'yes' : `NO ${JSON.stringify(r.answers)}`} |`);
rmSync(work, { recursive: true, force: true });
process.exit(0);
