import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { fileTools, waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * A listed tool is callable: between a list_changed and the client's next tools/list, a name the
 * client saw answers, or is refused saying why; never "Unknown tool". The tools come from a file
 * the fixture server rereads (test/fixtures/file-tools-server.mjs).
 */

const tool = (name: string) => ({ name, description: `${name} it.`, inputSchema: { type: 'object', properties: {} } });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

const errorOf = (r: CallToolResult) => (r.structuredContent as { error: { code: string; message: string; hint?: string } }).error;

describe('a name a client saw is never "unknown"', () => {
  it('a tool its server dropped, and a server a reload removed, are refused saying they are no longer offered', async () => {
    const folder = tempDir();
    const files = { a: join(folder, 'a.json'), b: join(folder, 'b.json') };
    writeFileSync(files.a, JSON.stringify([tool('keep'), tool('drop')]));
    writeFileSync(files.b, JSON.stringify([tool('other')]));
    const config = writeConfig({
      mcp_servers: { a: { ...fileTools(files.a) }, b: { ...fileTools(files.b) } },
    });
    const session = await serveStdioInProcess({ config, name: 'listed-callable' });
    closers.push(() => session.client.close());
    const seen = (await session.client.listTools()).tools.map((t) => t.name);
    expect(seen).toEqual(expect.arrayContaining(['a__keep', 'a__drop', 'b__other']));

    // The server drops a tool: list_changed goes out, and the client calls the name it saw.
    const changes = session.heard.toolsChanged;
    writeFileSync(files.a, JSON.stringify([tool('keep')]));
    expect(await waitFor(() => session.heard.toolsChanged > changes, 5000)).toBe(true);
    const dropped = (await session.client.callTool({ name: 'a__drop', arguments: {} })) as CallToolResult;
    expect(dropped.isError).toBe(true);
    expect(errorOf(dropped).code).toBe('NOT_FOUND');
    expect(errorOf(dropped).message).toMatch(/Tool a__drop is no longer offered: the tools of server "a" changed/);
    expect(errorOf(dropped).hint).toMatch(/tools\/list/);

    // A reload removes server b while the client holds b__other. The edit drops b's pins before it
    // writes the config (a reader never sees an entry with approvals it lost), so serve may first
    // withhold b's tools (a pins change) and then remove b (the config's reload): the call waits for the removal.
    const removals: string[][] = [];
    session.runtime.configs.live.reloaded.on((report) => void removals.push(report.plan?.servers.removed ?? []));
    const removed = await runCommand(['server', 'remove', 'b', '--config', config]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await waitFor(() => removals.some((names) => names.includes('b')), 10_000)).toBe(true);
    expect((await session.client.listTools()).tools.map((t) => t.name)).not.toContain('b__other');
    const gone = (await session.client.callTool({ name: 'b__other', arguments: {} })) as CallToolResult;
    expect(gone.isError).toBe(true);
    expect(errorOf(gone).message).toMatch(/no longer offered: the tools of server "b" changed/);

    // A name never listed is still unknown, as before.
    await expect(session.client.callTool({ name: 'a__never', arguments: {} })).rejects.toThrow(/Unknown tool/);
    // And what stays answers.
    expect(JSON.stringify((await session.client.callTool({ name: 'a__keep', arguments: {} })).content)).toContain('called keep');
  }, 30_000);
});
