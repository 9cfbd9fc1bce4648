import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/tools/index.js';
import { inputJsonSchema } from '../../src/core/schema.js';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';

/**
 * Boundary "files -> agents" (docs/SECURITY.md): mcpkit's own files are outside every root, for
 * every tool an agent reaches that reads through roots. The worst case is set up: the root is the
 * config's own folder with dotfiles served (hidden: true), and mcpkit's state and cache folders
 * lie inside it. Every file of mcpkit's holds a canary; every retrieve tool of the registry (a new
 * one is covered without editing this test: its arguments are made from its schema) is called on
 * each of them, and no answer may carry a canary.
 */
const CANARY = 'canary-7f3a9c1e';
/** What the tools are asked for: a part of the canary (results echo their query; the whole canary is only in the files). */
const ASKED = CANARY.slice(0, 11);

const OWN = [
  'mcpkit.yaml',
  'mcpkit.lock.yaml',
  'mcpkit.yaml.lock',
  'mcpkit.yaml.lock.break',
  '.mcpkit.yaml.4242.deadbeef.tmp',
  '.mcpkit.yaml.lock.4242.deadbeef.tmp',
  'audit.jsonl',
  'audit.jsonl.1',
  'state/mcpkit/oauth/github.json',
  'cache/mcpkit/tools/0123.json',
  'config-home/mcpkit/config.yaml',
];

let served: InProcessServe;
let client: Client;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    [
      `# ${CANARY}`,
      'retrieve:',
      '  roots:',
      '    code: { path: ., hidden: true }',
      'serve:',
      '  audit_log: audit.jsonl',
      `  token: "\${ADMIN_TOKEN:-adm-${CANARY}}"`,
      '',
    ].join('\n'),
  );
  for (const rel of OWN.slice(1)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), `token: ${CANARY}\n`);
  }
  writeFileSync(join(dir, 'notes.md'), '# notes\nnothing secret here\n');
  const env = cleanEnv({ XDG_STATE_HOME: join(dir, 'state'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config-home') });
  served = await serveHttpInProcess(config, { env });
  client = new Client({ name: 'attacker', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer adm-${CANARY}` } } }),
  );
});

afterAll(async () => {
  await client?.close();
  await served?.close();
});

/** Arguments for a tool made from its schema, aimed at `target` (a path under the root, or a glob). */
function argumentsFor(tool: (typeof allTools)[number], target: string): Record<string, unknown> {
  const schema = inputJsonSchema(tool.input) as { properties?: Record<string, { type?: string; maximum?: number }>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema.properties ?? {})) {
    if (name === 'repo') continue;
    if (name === 'path') args[name] = `code/${target}`;
    else if (name === 'glob') args[name] = target.includes('/') ? `**/${target.split('/').pop()}` : `**/${target}`;
    else if (name === 'query') args[name] = ASKED;
    else if (name === 'hidden' || name === 'ignored') args[name] = true;
    else if (name === 'start') args[name] = 1;
    else if (name === 'end') args[name] = 1000;
    else if (schema.required?.includes(name)) args[name] = spec.type === 'string' ? ASKED : spec.type === 'integer' ? 1 : true;
  }
  return args;
}

const retrieveTools = allTools.filter((t) => t.group === 'retrieve');

describe("mcpkit's own files through every retrieve tool", () => {
  it('the registry has retrieve tools, and serve offers each of them', async () => {
    expect(retrieveTools.length).toBeGreaterThanOrEqual(6);
    const offered = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const tool of retrieveTools) expect(offered, tool.name).toContain(tool.name);
  });

  it.each(retrieveTools.flatMap((tool) => [...OWN, '*'].map((target) => [tool.name, target] as const)))('%s on %s finds no canary', async (name, target) => {
    const tool = retrieveTools.find((t) => t.name === name)!;
    const result = await client.callTool({ name, arguments: argumentsFor(tool, target) });
    const text = JSON.stringify(result);
    expect(text).not.toContain(CANARY);
    // Not a refusal of the call's shape: the tool ran and found nothing, or refused the file itself.
    const error = (result.structuredContent as { error?: { code: string } } | undefined)?.error;
    if (error) expect(['PATH_HIDDEN', 'FILE_NOT_FOUND', 'DIR_NOT_FOUND', 'NOT_A_DIRECTORY', 'NOT_A_FILE', 'PATH_NOT_FOUND']).toContain(error.code);
  });

  it('the files around them stay readable', async () => {
    const opened = await client.callTool({ name: 'open_file', arguments: { path: 'code/notes.md' } });
    expect(JSON.stringify(opened)).toContain('nothing secret here');
    const listed = JSON.stringify(await client.callTool({ name: 'list_dir', arguments: { path: 'code', hidden: true } }));
    expect(listed).toContain('notes.md');
    for (const own of ['mcpkit.yaml', 'mcpkit.lock.yaml', 'audit.jsonl', '.tmp']) expect(listed).not.toContain(own);
    for (const folder of ['state', 'cache', 'config-home']) {
      const inside = JSON.stringify(await client.callTool({ name: 'list_dir', arguments: { path: `code/${folder}`, hidden: true } }));
      expect(inside).not.toContain('mcpkit');
    }
  });

  it('open_file names the reason: it is one of mcpkit own files', async () => {
    const r = (await client.callTool({ name: 'open_file', arguments: { path: 'code/mcpkit.yaml' } })).structuredContent as {
      error: { code: string; message: string };
    };
    expect(r.error.code).toBe('PATH_HIDDEN');
    expect(r.error.message).toContain("mcpkit's own files");
    expect(r.error.message).toContain('config_show');
  });
});

describe('the finding as it was made: the default root (the config folder), a named client', () => {
  it('search by regex over mcpkit.yaml, smart_search and the audit log give nothing of them', async () => {
    const project = tempDir();
    const config = join(project, 'mcpkit.yaml');
    writeFileSync(config, `serve:\n  port: 8123\n  audit_log: audit.jsonl\n  token: "\${ADMIN_TOKEN:-adm-0123${CANARY}}"\n`);
    writeFileSync(join(project, 'audit.jsonl'), `{"tool":"x","client":"${CANARY}"}\n`);
    const own = await serveHttpInProcess(config, { env: cleanEnv() });
    const agent = new Client({ name: 'reader', version: '1' });
    try {
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`), { requestInit: { headers: { authorization: `Bearer adm-0123${CANARY}` } } }),
      );
      const found = await agent.callTool({ name: 'search', arguments: { query: '^\\s*(token|port):', regex: true, glob: 'mcpkit.yaml' } });
      expect(JSON.stringify(found)).not.toMatch(/token:|port:/);
      for (const query of ['token port serve', 'client canary tool']) {
        expect(JSON.stringify(await agent.callTool({ name: 'smart_search', arguments: { query } }))).not.toContain(CANARY);
      }
      expect(JSON.stringify(await agent.callTool({ name: 'search', arguments: { query: ASKED } }))).not.toContain(CANARY);
    } finally {
      await agent.close();
      await own.close();
    }
  });
});
