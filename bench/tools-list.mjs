#!/usr/bin/env node
// What `tools/list` costs an agent (tokens = bytes/4 of the result), by what it connects to:
// mcpkit serve with no config, with three reference servers (server-everything, server-memory,
// server-filesystem) and no views, and a search view over the same three; each under the default
// exposure (auto, budget 4000) and with --exposure direct. The real SDK client over stdio.
// Usage: node bench/tools-list.mjs   (needs "npm run build" first)
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/run.js');
const work = mkdtempSync(join(tmpdir(), 'mcpkit-bench-list-'));
const server = (pkg, ...args) => ({ command: process.execPath, args: [join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), ...args] });
const three = {
  everything: server('server-everything', 'stdio'),
  memory: { ...server('server-memory'), env: { MEMORY_FILE_PATH: join(work, 'memory.json') } },
  filesystem: server('server-filesystem', work),
};
const configs = {
  none: { mcp_servers: {} },
  three: { mcp_servers: three, tool_views: { finder: { exposure: 'search', servers: Object.keys(three) } } },
};
for (const [name, config] of Object.entries(configs)) writeFileSync(join(work, `${name}.yaml`), JSON.stringify(config));
const env = { ...process.env, XDG_CONFIG_HOME: work };
delete env.MCPKIT_CONFIG;

async function listing(config, args) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'serve', '--config', join(work, `${config}.yaml`), ...args],
      env,
      cwd: work,
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    return { tools: tools.length, tokens: Math.ceil(Buffer.byteLength(JSON.stringify({ tools })) / 4) };
  } finally {
    await client.close();
  }
}

try {
  const rows = [
    ['`mcpkit serve`, no config', 'none', []],
    ['`mcpkit serve`, three upstreams, no views', 'three', []],
    ['a `search` view over the same three', 'three', ['--view', 'finder']],
  ];
  console.log('tools/list, tokens = bytes/4 (default exposure auto, budget 4000; direct = --exposure direct)');
  console.log('| what an agent connects to | tools listed | tokens | with --exposure direct: tools | tokens |');
  console.log('|---|---|---|---|---|');
  for (const [label, config, args] of rows) {
    const auto = await listing(config, args);
    const direct = args.length ? undefined : await listing(config, [...args, '--exposure', 'direct']);
    console.log(
      `| ${label} | ${auto.tools} | ${auto.tokens.toLocaleString('en')} | ${direct?.tools ?? ''} | ${direct ? direct.tokens.toLocaleString('en') : ''} |`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
