import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { fileTools, waitFor } from '../helpers/upstreams.js';

/**
 * A published tool name never changes because another server was added, removed, enabled or
 * disabled: the default view always prefixes, a named view prefixes when it lists more than one
 * server (enabled or not). `mcpkit call` takes the bare upstream name when one server has it.
 */

function setUp() {
  const dir = tempDir();
  const tools = join(dir, 'tools.json');
  writeFileSync(tools, JSON.stringify([{ name: 'send_note', description: 'Send a note.', inputSchema: { type: 'object' } }]));
  const server = { ...fileTools(tools) };
  const config = join(dir, 'mcpkit.yaml');
  const write = (servers: Record<string, object>, views: Record<string, object>) =>
    writeFileSync(config, stringify({ mcp_servers: servers, tool_views: views }));
  return { config, server, write };
}

async function names(url: string): Promise<string[]> {
  const client = new Client({ name: 'stable-names', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((t) => t.name).filter((n) => n.includes('send_note'));
  } finally {
    await client.close();
  }
}

describe('stable names', () => {
  it('a name stays as it is while another server is added, enabled, disabled and removed', async () => {
    const { config, server, write } = setUp();
    const views = { solo: { servers: ['notes'] }, pair: { servers: ['notes', 'other'] } };
    write({ notes: server, other: { ...server, disabled: true } }, views);
    const served = await serveHttpInProcess(config);
    const routes = { default: `${served.url}/mcp`, solo: `${served.url}/view/solo/mcp`, pair: `${served.url}/view/pair/mcp` };
    const seen = async () => ({
      default: await names(routes.default),
      solo: await names(routes.solo),
      pair: await names(routes.pair).catch(() => [] as string[]),
    });

    const first = await seen();
    expect(first).toEqual({ default: ['notes__send_note'], solo: ['send_note'], pair: ['notes__send_note'] });
    const steps: [string, Record<string, object>, Record<string, object>][] = [
      ['enabled', { notes: server, other: server }, views],
      ['disabled', { notes: server, other: { ...server, disabled: true } }, views],
      // A server a view lists cannot be removed (server remove refuses): pair goes with it.
      ['removed', { notes: server }, { solo: views.solo }],
      ['added again', { notes: server, other: server }, views],
    ];
    for (const [step, servers, nextViews] of steps) {
      const reloaded = served.nextReload();
      write(servers, nextViews);
      await reloaded;
      // A server the reload starts is listed once it is up (its clients hear list_changed then);
      // a loaded machine starts it after the reload is done.
      const count = servers.other && !('disabled' in servers.other) ? 2 : 1;
      let now = first;
      await waitFor(async () => (now = await seen()).default.length === count, 20_000, 100);
      // notes' tool keeps its name on every route; other's appears beside it where it is served.
      for (const route of ['default', 'solo', 'pair'] as const) {
        if (route in nextViews || route === 'default') expect(now[route], `${step}: ${route}`).toContain(first[route][0]);
      }
      expect(now.default.length, step).toBe(count);
    }
    await served.close();
  });

  it('mcpkit call takes the bare upstream name when one server has it, and names the servers when several do', async () => {
    const { config, server, write } = setUp();
    write({ notes: server }, {});
    const env = cleanEnv({ MCPKIT_CONFIG: config });
    const one = await runCommand(['call', 'send_note', 'text=hi'], { env });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('called send_note with {"text":"hi"}');

    write({ notes: server, other: server }, {});
    const two = await runCommand(['call', 'send_note', 'text=hi', '--json'], { env });
    expect(two.code).toBe(2);
    expect(JSON.parse(two.stdout)).toMatchObject({
      error: { code: 'INVALID_INPUT', details: { candidates: ['notes__send_note', 'other__send_note'] }, hint: expect.stringContaining('notes__send_note') },
    });
    const full = await runCommand(['call', 'other__send_note'], { env });
    expect(full.code, full.stderr).toBe(0);
  });
});
