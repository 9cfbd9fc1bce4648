import { existsSync, linkSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/daemon/client/client.js';
import type { DaemonPlace } from '../../src/daemon/client/place.js';
import { tempDir } from '../helpers/cli.js';

/**
 * What a command removes when it finds no daemon: a dead one's socket and record, and never a
 * socket a starting daemon has just linked into place.
 */
function place(): DaemonPlace {
  const folder = join(tempDir('mcpkit-test-leftovers-'), 'mcpkit');
  mkdirSync(folder, { mode: 0o700 });
  return { folder, config: '/x/mcpkit.yaml', socket: join(folder, 'd.sock'), info: join(folder, 'd.json') } as DaemonPlace;
}

/** A socket file nothing listens on: what a killed daemon leaves. */
async function deadSocket(path: string): Promise<void> {
  const server = createServer();
  const live = `${path}.live`;
  await new Promise<void>((r) => server.listen(live, r));
  linkSync(live, path);
  await new Promise<void>((r) => server.close(() => r()));
}

describe('daemon leftovers', () => {
  it('a refused socket and the record of a dead process are removed', async () => {
    const p = place();
    await deadSocket(p.socket);
    writeFileSync(p.info, JSON.stringify({ pid: 2 ** 22 + 1 }));
    expect(await connect(p)).toBeUndefined();
    expect(existsSync(p.socket)).toBe(false);
    expect(existsSync(p.info)).toBe(false);
  });

  it('no socket file: nothing is removed, the record of a live process neither', async () => {
    const p = place();
    writeFileSync(p.info, JSON.stringify({ pid: process.pid }));
    expect(await connect(p)).toBeUndefined();
    expect(existsSync(p.info)).toBe(true);
  });

  it('a daemon that links its socket into place while a command is refused keeps it', async () => {
    const p = place();
    await deadSocket(p.socket);
    const server = createServer((s) => s.end());
    const own = `${p.socket}.own`;
    await new Promise<void>((r) => server.listen(own, r));
    try {
      // The refusal arrives a tick after connect() looked at the file: replace it in between, as a
      // starting daemon does (its refuseSecondDaemon removed the dead socket, then it linked its own).
      const pending = connect(p);
      unlinkSync(p.socket);
      linkSync(own, p.socket);
      const socket = await pending;
      socket?.destroy();
      expect(existsSync(p.socket), 'the live daemon keeps its socket').toBe(true);
      const again = await connect(p);
      expect(again, 'and answers on it').toBeDefined();
      again?.destroy();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
