import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/**
 * Boundary "client -> upstream" (docs/SECURITY.md): a remote client's roots name folders on its
 * own machine; forwarded to server-filesystem on the gateway's, they would replace the folder the
 * admin gave it (its own design: roots win). They reach a server only when its entry says
 * `roots: forward`; a stdio client, the person on this machine, is forwarded as before.
 */
function files() {
  const dir = tempDir();
  const given = join(dir, 'given');
  mkdirSync(given);
  writeFileSync(join(given, 'shared.txt'), 'for everyone\n');
  writeFileSync(join(dir, 'other-agent-token.txt'), 'tok-of-another-agent\n');
  return { dir, given };
}

/** A client that declares roots and answers with the whole file system. */
function rootedClient(name: string): Client {
  const client = new Client({ name, version: '1' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///', name: 'everything' }] }));
  return client;
}

const text = (r: unknown) => JSON.stringify((r as { content: unknown }).content);

describe("a remote client's roots and a server on the gateway's machine", () => {
  it('over HTTP, roots are not offered: server-filesystem keeps the folder it was given', async () => {
    const { dir, given } = files();
    const served = await serveHttpInProcess(writeConfig({ mcp_servers: { fs: SERVERS.filesystem(given) } }));
    const client = rootedClient('remote');
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      const allowed = text(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
      expect(allowed).toContain(given);
      expect(allowed).not.toMatch(/"\/"|\\n\/\\n|: \/(\\n|")/);
      const outside = text(await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(dir, 'other-agent-token.txt') } }));
      expect(outside).not.toContain('tok-of-another-agent');
      const hostname = text(await client.callTool({ name: 'fs__read_text_file', arguments: { path: '/etc/hostname' } }));
      expect(hostname).toMatch(/denied|outside|not allowed/i);
    } finally {
      await client.close();
      await served.close();
    }
  });

  it('over HTTP with roots: forward in the entry, they are (the admin chose it)', async () => {
    const { given } = files();
    const served = await serveHttpInProcess(writeConfig({ mcp_servers: { fs: { ...SERVERS.filesystem(given), roots: 'forward' } } }));
    const client = rootedClient('remote-trusted');
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`)));
      let allowed = '';
      for (let i = 0; i < 50 && !allowed.includes('"/'); i++) {
        allowed = text(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
        if (allowed.includes(given)) await new Promise((r) => setTimeout(r, 100));
      }
      expect(allowed).not.toContain(given);
    } finally {
      await client.close();
      await served.close();
    }
  });

  it('over stdio (the person on this machine), roots are forwarded as before', async () => {
    const { given } = files();
    const served = await serveStdioInProcess({ config: writeConfig({ mcp_servers: { fs: SERVERS.filesystem(given) } }), client: rootedClient('local') });
    try {
      let allowed = '';
      for (let i = 0; i < 50; i++) {
        allowed = text(await served.client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
        if (!allowed.includes(given)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(allowed).not.toContain(given);
    } finally {
      await served.close();
    }
  });
});
