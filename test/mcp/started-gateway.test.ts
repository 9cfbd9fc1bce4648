import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { pinFilePath, updatePins } from '../../src/config/files/pin-file.js';
import { pinOf } from '../../src/proxy/pins/pins.js';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { fileTools } from '../helpers/upstreams.js';

/**
 * A started gateway answers its first tools/list without waiting for its servers (issue 70):
 * `serve --http` starts every enabled server with itself (serve.eager, on by default) and says it
 * listens once they are connected, so the first listing starts nothing. A server that hangs at
 * start holds "listening" back no longer than serve.start_wait_ms, and is named in it. Orders of
 * events are asserted (what was started when serve said it listens), never a bound of time.
 */
const tool = (name: string, description: string): Tool => ({ name, description, inputSchema: { type: 'object', properties: {} } });

function project(serve: object = {}, gated: readonly string[] = []) {
  const dir = tempDir('mcpkit-started-');
  const started = join(dir, 'started.log');
  writeFileSync(started, '');
  const server = (name: string, tools: Tool[]) => {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(tools));
    const env: Record<string, string> = { STARTED_LOG: started, ...(gated.includes(name) ? { START_GATE: join(dir, `${name}.open`) } : {}) };
    return { ...fileTools(join(dir, `${name}.json`)), env };
  };
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { notes: server('notes', [tool('jot', 'Writes a note.')]), clock: server('clock', [tool('now', 'Says the time.')]) },
      tool_views: { desk: { servers: ['notes'] } },
      serve,
    }),
  );
  /** The servers started so far, by their tools file's name. */
  const starts = () => readFileSync(started, 'utf8').split('\n').filter(Boolean).sort();
  return { dir, config, starts, gate: (name: string) => join(dir, `${name}.open`) };
}

async function listed(served: InProcessServe, route = '/mcp'): Promise<string[]> {
  const client = new Client({ name: 'first', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}${route}`)));
  try {
    // The servers' tools (the default catalog lists mcpkit's own beside them, a view only what it names).
    return (await client.listTools()).tools
      .map((t) => t.name)
      .filter((name) => route !== '/mcp' || name.includes('__'))
      .sort();
  } finally {
    await client.close();
  }
}

const states = (served: InProcessServe) => Object.fromEntries(served.runtime.serving.upstreamStatus().map((u) => [u.name, u.state]));

describe('a started serve --http', () => {
  it('has its servers connected when it says it listens: the first listing, of /mcp and of a view, starts nothing', async () => {
    const p = project();
    const served = await serveHttpInProcess(p.config);
    // Before any request: both started, both connected.
    expect(p.starts()).toEqual(['clock.json', 'notes.json']);
    expect(states(served)).toEqual({ clock: 'ready', notes: 'ready' });
    expect(served.lines.find((l) => l.includes('listening on'))).not.toMatch(/still starting|not connected/);
    expect(await listed(served)).toEqual(['clock__now', 'notes__jot']);
    expect(await listed(served, '/view/desk/mcp')).toEqual(['jot']);
    expect(p.starts(), 'no server started again for a listing').toEqual(['clock.json', 'notes.json']);
    await served.close();
  });

  it('a per_client server, reached with each caller’s own credentials, is not named as failed when it listens', async () => {
    const p = project();
    const config = JSON.parse(readFileSync(p.config, 'utf8')) as { mcp_servers: Record<string, object> };
    config.mcp_servers.mine = { url: 'http://127.0.0.1:9/mcp', per_client: true };
    writeFileSync(p.config, JSON.stringify(config));
    const served = await serveHttpInProcess(p.config);
    const line = served.lines.find((l) => l.includes('listening on'));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/not connected|still starting/);
    expect(states(served)).toMatchObject({ clock: 'ready', notes: 'ready' });
    await served.close();
  });

  it('a server that hangs at start holds "listening" back no longer than serve.start_wait_ms, and is named in it', async () => {
    const p = project({ start_wait_ms: 200 }, ['clock']);
    const served = await serveHttpInProcess(p.config);
    // serve says it listens while clock's gate is still shut: it cannot have answered.
    expect(existsSync(p.gate('clock'))).toBe(false);
    expect(served.lines.find((l) => l.includes('listening on'))).toMatch(/servers still starting: clock\b/);
    expect(states(served).clock).toBe('connecting');
    // The first listing waits only for the one still starting.
    const listing = listed(served);
    writeFileSync(p.gate('clock'), '');
    expect(await listing).toEqual(['clock__now', 'notes__jot']);
    expect(p.starts()).toEqual(['clock.json', 'notes.json']);
    await served.close();
  });

  it('with serve.eager: false, or --no-eager, nothing starts before the first listing', async () => {
    for (const [serve, flags] of [
      [{ eager: false }, {}],
      [{}, { eager: false }],
    ] as const) {
      const p = project(serve);
      const served = await serveHttpInProcess(p.config, flags);
      expect(p.starts()).toEqual([]);
      expect(served.runtime.serving.upstreamStatus()).toEqual([]);
      expect(await listed(served)).toEqual(['clock__now', 'notes__jot']);
      expect(p.starts()).toEqual(['clock.json', 'notes.json']);
      await served.close();
    }
  });

  it('started at once, a server serves only what the lock approves, intact: a changed tool and a new one stay withheld', async () => {
    const p = project();
    // The review approved another description of jot, and never saw clock's now.
    await updatePins(pinFilePath(p.config), (pins) => {
      pins.servers.notes = { jot: pinOf(tool('jot', 'Writes a note (reviewed).')) };
      pins.servers.clock = { then: pinOf(tool('then', 'Said the time.')) };
      return true;
    });
    const served = await serveHttpInProcess(p.config);
    expect(p.starts()).toEqual(['clock.json', 'notes.json']);
    expect(await listed(served)).toEqual([]);
    await served.close();
  });
});
