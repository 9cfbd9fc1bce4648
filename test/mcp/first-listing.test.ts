import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinFilePath, updatePins } from '../../src/config/files/pin-file.js';
import { pinOf } from '../../src/proxy/pins/pins.js';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { listeningClient } from '../helpers/serve.js';
import { fileTools, waitFor } from '../helpers/upstreams.js';

/**
 * A started gateway with serve.list_from_lock answers its first tools/list from the approved lock
 * while its servers start (issue 70): the servers here answer nothing until the test opens their gate, so a listing that
 * waited for them could not name their tools. A call still waits for its server; the live listing,
 * once in, replaces the lock's (and is announced where it serves something else).
 */
const tool = (name: string, description: string): Tool => ({ name, description, inputSchema: { type: 'object', properties: {} } });
const APPROVED = [tool('alpha', 'The first tool.'), tool('beta', 'The second tool.')];
let dir: string;
let served: InProcessServe;
const gate = (server: string) => join(dir, `${server}.open`);

beforeAll(async () => {
  dir = tempDir('mcpkit-first-list-');
  const server = (name: string, tools: Tool[]) => {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(tools));
    return { ...fileTools(join(dir, `${name}.json`)), env: { START_GATE: gate(name) } };
  };
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      // `same` lists what the lock approves; `changed` dropped beta and lists a new tool, never approved.
      mcp_servers: { same: server('same', APPROVED), changed: server('changed', [APPROVED[0]!, tool('gamma', 'New since the review.')]) },
      tool_views: { both: { servers: ['same', 'changed'] } },
      serve: { list_from_lock: true },
    }),
  );
  await updatePins(pinFilePath(config), (pins) => {
    for (const name of ['same', 'changed']) pins.servers[name] = Object.fromEntries(APPROVED.map((t) => [t.name, pinOf(t)]));
    return true;
  });
  served = await serveHttpInProcess(config);
});
afterAll(() => served?.close());

async function connect(view: string) {
  const { client, heard } = listeningClient('first-list');
  await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/view/${view}/mcp`)));
  return { client, heard };
}

describe('the first tools/list of a started gateway', () => {
  it('is answered from the lock while the servers have not started; a call waits for its server', async () => {
    const { client, heard } = await connect('both');
    try {
      const { tools } = await client.listTools();
      // Neither server can have answered: their gates are still shut.
      expect(existsSync(gate('same')) || existsSync(gate('changed'))).toBe(false);
      expect(tools.map((t) => t.name).sort()).toEqual(['changed__alpha', 'changed__beta', 'same__alpha', 'same__beta']);
      expect(tools.find((t) => t.name === 'same__beta')?.description).toBe('The second tool.');

      const call = client.callTool({ name: 'same__alpha', arguments: {} });
      writeFileSync(gate('same'), '');
      expect(JSON.stringify((await call).content)).toContain('called alpha');

      // The live listing of `changed` has no beta and a gamma never approved: the client is told, and beta goes, gamma stays withheld.
      writeFileSync(gate('changed'), '');
      expect(await waitFor(() => heard.toolsChanged > 0, 20_000)).toBe(true);
      const after = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(after).toEqual(['changed__alpha', 'same__alpha', 'same__beta']);
    } finally {
      await client.close();
    }
  });
});
