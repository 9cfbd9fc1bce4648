import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';
import { FIXTURE_SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * An upstream's tools/list_changed reaches the gateway's clients at once, not after the gateway
 * has read the server's listing again: in a chain of gateways each hop would otherwise add its own
 * round trip before passing the news on (the conformance suite gives a listen stream 800 ms for
 * it through two). A listing asked for meanwhile waits for the new one: nothing stale is served.
 * The server's second listing is held (LIST_GATE) for as long as the test says.
 */
const tool = (name: string) => ({ name, description: `${name} it.`, inputSchema: { type: 'object' } });

describe('an upstream says its tools changed', () => {
  it('the clients hear it while its listing is still being read, and the next listing is the new one', async () => {
    const dir = tempDir();
    const tools = join(dir, 'tools.json');
    const gate = join(dir, 'list-gate');
    writeFileSync(tools, JSON.stringify([tool('first')]));
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(
      config,
      // Pinning would withhold the new tool: what is tested here is when the news and the listing come.
      JSON.stringify({
        pinning: 'off',
        mcp_servers: { notes: { command: process.execPath, args: [FIXTURE_SERVERS.fileTools, tools], env: { LIST_GATE: gate } } },
      }),
    );
    const served = await serveHttpInProcess(config);
    const client = new Client({ name: 'news', version: '1' });
    let heard = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void heard++);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('notes__first');
      writeFileSync(tools, JSON.stringify([tool('first'), tool('second')]));
      // The gateway's own listing of the server is held at the gate: the news came before it.
      expect(await waitFor(() => heard > 0, 15_000)).toBe(true);
      // Asked for now, the listing is the new one: it waits for the server's, never the one held before.
      const listing = client.listTools();
      writeFileSync(gate, '');
      expect((await listing).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['notes__first', 'notes__second']));
    } finally {
      writeFileSync(gate, '');
      await client.close();
      await served.close();
    }
  });
});
