import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';

/**
 * What a 2026-07-28 client costs a gateway already serving 2025 clients: its connection to a stdio
 * server is kept apart (it is offered what a 2026 client may be asked), and that costs one start of
 * the server, not two: the server's era is probed on the process that then serves (server/discover,
 * then initialize on the same pipe), not on a throw-away one first. A server that exits on a
 * request before initialize is started once more, with the 2025 handshake, and works.
 */
const PROBE = join(ROOT, 'test/fixtures/probe-server.mjs');
const starts = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l && !l.startsWith('ended ') && !l.startsWith('offered ')).length;

describe("a 2026-07-28 client's connections to stdio servers", () => {
  it('cost one start of a 2025 server, and two only of one that exits on the probe', async () => {
    const dir = tempDir();
    const logs = { plain: join(dir, 'plain.log'), strict: join(dir, 'strict.log') };
    for (const file of Object.values(logs)) writeFileSync(file, '');
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        mcp_servers: {
          plain: { command: process.execPath, args: [PROBE], env: { STARTS_LOG: logs.plain } },
          strict: { command: process.execPath, args: [PROBE], env: { STARTS_LOG: logs.strict, STRICT_INIT: '1' } },
        },
      }),
    );
    const served = await serveHttpInProcess(config, { env: cleanEnv() });
    const legacy = new Client({ name: 'old', version: '1' });
    const modern = new Client({ name: 'new', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } });
    try {
      await legacy.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      const old = (await legacy.listTools()).tools.map((t) => t.name);
      expect(old).toEqual(expect.arrayContaining(['plain__whoami', 'strict__whoami']));
      expect([starts(logs.plain), starts(logs.strict)]).toEqual([1, 1]);
      await modern.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      const listed = (await modern.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(expect.arrayContaining(['plain__whoami', 'strict__whoami']));
      expect(starts(logs.plain), 'the 2026 connection to a 2025 server: one start').toBe(2);
      expect(starts(logs.strict), 'a server that exits on the probe: started once more').toBe(3);
      // And it is called, on the connection that served the listing.
      expect(JSON.stringify(await modern.callTool({ name: 'strict__whoami', arguments: {} }))).toContain('pid');
      expect(starts(logs.strict)).toBe(3);
    } finally {
      await legacy.close();
      await modern.close();
      await served.close();
    }
  });
});
