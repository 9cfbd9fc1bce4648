import { describe, expect, it } from 'vitest';
import { importServers } from '../../src/config/imports/import-servers.js';

describe('importServers', () => {
  it('reads Claude Desktop / Cursor mcpServers', () => {
    const result = importServers({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: 1 } },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        'bad name': { command: 'x' },
        empty: {},
        ftp: { url: 'ftp://x' },
      },
    });
    expect(result.format).toBe('mcpServers');
    expect(result.servers).toEqual([
      { name: 'fs', entry: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } } },
      { name: 'remote', entry: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } } },
    ]);
    expect(result.skipped.map((s) => s.name)).toEqual(['bad name', 'empty', 'ftp']);
  });

  it.each([
    [
      { servers: { gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } } },
      'servers',
      { url: 'https://api.githubcopilot.com/mcp/', transport: 'http' },
    ],
    [{ servers: { old: { type: 'sse', url: 'https://x.example/sse' } } }, 'servers', { url: 'https://x.example/sse', transport: 'sse' }],
    [
      { 'editor.fontSize': 12, mcp: { servers: { m: { type: 'stdio', command: 'node', args: ['m.js'] } } } },
      'mcp.servers',
      { command: 'node', args: ['m.js'] },
    ],
  ])('reads VS Code %#', (doc, format, entry) => {
    const result = importServers(doc);
    expect(result.format).toBe(format);
    expect(result.servers[0]!.entry).toEqual(entry);
  });

  it("takes a URL with a placeholder, Claude Code's ${VAR:-default} included (filled in when the config loads)", () => {
    const result = importServers({
      mcpServers: {
        api: { type: 'http', url: '${API_BASE_URL:-https://api.example.com}/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } },
        plain: { type: 'http', url: '${SERVER_URL}' },
        ftp: { url: 'ftp://x' },
      },
    });
    expect(result.servers.map((s) => s.name)).toEqual(['api', 'plain']);
    expect(result.servers[0]!.entry).toMatchObject({ url: '${API_BASE_URL:-https://api.example.com}/mcp', transport: 'http' });
    expect(result.skipped.map((s) => s.name)).toEqual(['ftp']);
  });

  it('refuses a file with no server table', () => {
    expect(() => importServers({ other: 1 })).toThrow(/mcpServers/);
  });
});
