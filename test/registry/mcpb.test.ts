import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry } from '../../src/registry/mcpb-manifest.js';
import { fetchBundle } from '../../src/registry/mcpb.js';
import { tempDir } from '../helpers/cli.js';
import { entryOf, zerosEntry, zipOf } from '../helpers/zip-writer.js';

const MIB = 1024 * 1024;
/**
 * The bomb unpacks to 512 MiB; refused a chunk at a time, RSS rose about 58 MiB (JSZip's reader
 * and streams, measured alone), and a shared worker adds noise (55 MB was seen against the old 48
 * MB bound). Held whole, it rose 1,056 MiB. The bound sits far from both: over three times the
 * streaming rise, under half the bomb itself.
 */
const BOMB_MIB = 512;
const RSS_BOUND_MIB = 192;

describe('bundleEntry: the manifest as a config entry', () => {
  it("makes the format's substitutions, and each user_config a ${VAR} to set", () => {
    const { entry, variables } = bundleEntry(
      {
        description: 'Files',
        server: {
          mcp_config: {
            command: 'node',
            args: ['${__dirname}/server/index.js', '${user_config.root}', '--sep=${/}'],
            env: { API_KEY: '${user_config.api_key}', DOCS: '${DOCUMENTS}', OTHER: '${PATH}' },
          },
        },
        user_config: {
          api_key: { type: 'string', sensitive: true, required: true, description: 'Key' },
          root: { type: 'directory', default: '${HOME}/Desktop', title: 'Root' },
        },
      },
      '/cache/b/abc',
    );
    expect(entry).toEqual({
      description: 'Files',
      command: 'node',
      // A default that is not plain text (it names a folder through ${HOME}) cannot stand in ${VAR:-...}.
      args: ['/cache/b/abc/server/index.js', '${ROOT:-}', '--sep=/'],
      // What the format does not substitute is the bundle's own text: never filled in from mcpkit's environment.
      env: { API_KEY: '${API_KEY}', DOCS: '${HOME}/Documents', OTHER: '$${PATH}' },
      cwd: '/cache/b/abc',
    });
    expect(variables).toEqual([
      { name: 'ROOT', required: false, secret: false, description: 'Root' },
      { name: 'API_KEY', required: true, secret: true, description: 'Key' },
    ]);
  });

  it('a manifest without mcp_config.command cannot be started: said so', () => {
    expect(() => bundleEntry({ server: { type: 'node' } }, '/x')).toThrow(/no server.mcp_config.command/);
  });
});

describe('fetchBundle refuses what it cannot trust', () => {
  let server: Server;
  let base = '';
  let climbing: Buffer;
  let climbingAlone: Buffer;
  let bomb: Buffer;
  beforeAll(async () => {
    // JSZip writes a folder entry "../" (read back as "/") beside the file; other tools write none,
    // and JSZip's reader then hands out the name with its "../" taken off.
    const { default: JSZip } = await import('jszip');
    const zip = new JSZip();
    zip.file('manifest.json', '{}');
    zip.file('../outside.txt', 'escaped');
    climbing = await zip.generateAsync({ type: 'nodebuffer' });
    climbingAlone = zipOf([entryOf('manifest.json', '{}'), entryOf('../outside.txt', 'escaped')]);
    // A zip bomb: 512 MiB of zeros in about half a MB, and a manifest. Big enough that holding it
    // whole would raise RSS far past the bound below, whatever else the shared worker holds.
    bomb = zipOf([entryOf('manifest.json', '{"server":{"mcp_config":{"command":"node"}}}'), zerosEntry('zeros.bin', BOMB_MIB)]);
    server = createServer((req, res) => res.end(req.url === '/bomb.mcpb' ? bomb : req.url === '/alone.mcpb' ? climbingAlone : climbing));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => void server.close());

  it.each([
    ['no fileSha256', 'https://example.com/b.mcpb', undefined, /no fileSha256/],
    ['plain http from another host', 'http://example.com/b.mcpb', 'a'.repeat(64), /https only/],
    ['not a URL', 'b.mcpb', 'a'.repeat(64), /is not a URL/],
  ])('%s', async (_what, url, sha, message) => {
    await expect(fetchBundle(url, sha, { env: { XDG_CACHE_HOME: tempDir() } })).rejects.toThrow(message);
  });

  it('a zip bomb stops at the unpacked cap, counted as it is written: nothing left behind, memory bounded', async () => {
    const cache = tempDir();
    const sha = createHash('sha256').update(bomb).digest('hex');
    expect(bomb.length).toBeLessThan(MIB);
    const rss = process.memoryUsage().rss;
    await expect(fetchBundle(`${base}/bomb.mcpb`, sha, { env: { XDG_CACHE_HOME: cache }, maxUnpackedBytes: 8 * 1024 * 1024 })).rejects.toThrow(
      /more than 8388608 bytes unpacked/,
    );
    // Inflated a chunk at a time: never the whole bomb in memory at once.
    expect(process.memoryUsage().rss - rss).toBeLessThan(RSS_BOUND_MIB * MIB);
    expect(existsSync(join(cache, 'mcpkit', 'bundles', sha))).toBe(false);
    const { readdirSync } = await import('node:fs');
    expect(existsSync(join(cache, 'mcpkit', 'bundles')) ? readdirSync(join(cache, 'mcpkit', 'bundles')) : []).toEqual([]);
  });

  it('a path that climbs out of the folder: refused, nothing left behind', async () => {
    const cache = tempDir();
    const sha = createHash('sha256').update(climbing).digest('hex');
    await expect(fetchBundle(`${base}/b.mcpb`, sha, { env: { XDG_CACHE_HOME: cache } })).rejects.toThrow(/would land outside its folder/);
    expect(existsSync(join(cache, 'mcpkit', 'outside.txt'))).toBe(false);
    expect(existsSync(join(cache, 'mcpkit', 'bundles', sha))).toBe(false);
  });

  it('a path that climbs out with no folder entry beside it: refused by the name the zip holds, not the one JSZip cleans up', async () => {
    const cache = tempDir();
    const sha = createHash('sha256').update(climbingAlone).digest('hex');
    await expect(fetchBundle(`${base}/alone.mcpb`, sha, { env: { XDG_CACHE_HOME: cache } })).rejects.toThrow(
      /holds the path "\.\.\/outside\.txt", which would land outside its folder/,
    );
    expect(existsSync(join(cache, 'mcpkit', 'bundles', sha))).toBe(false);
  });
});
