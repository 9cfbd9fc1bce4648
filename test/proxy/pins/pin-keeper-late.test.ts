import { utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { ConfigState } from '../../../src/app/config-state.js';
import { dropCountsOf, dropsBetween, dropServerPins, pinFilePath, readPins, sectionOf } from '../../../src/config/files/pin-file.js';
import { acquireLock } from '../../../src/config/files/lock.js';
import { createLogger } from '../../../src/core/logger.js';
import { cleanEnv, runCommand, tempDir } from '../../helpers/cli.js';

/**
 * A process loads the config, and makes its PinKeeper only later, when it first lists (serve
 * before its first listing, a one-shot command or the daemon, which never reload). A server
 * replaced meanwhile (`server add --force`: its approvals dropped in the lock, then the config
 * written) must not be pinned on first use as the entry this process still has: those pins would
 * be written under the new drop count, and the replacing server would inherit them. Real files,
 * the real ConfigState, and the real `mcpkit server add --force` as the edit.
 */
const GREET: Tool[] = [{ name: 'greet', description: 'Greets someone.', inputSchema: { type: 'object' } }];
const OLD = 'https://old.example/mcp';
const NEW = 'https://new.example/mcp';

function place() {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, `mcp_servers:\n  jobs:\n    url: ${OLD}\n`);
  const lock = pinFilePath(config);
  const state = new ConfigState({
    location: { path: config, source: 'flag' },
    env: {},
    logger: createLogger('silent'),
    runtime: { surface: 'cli' },
    say: () => {},
    followers: () => ({ applyReload: async () => {}, pinsChanged: () => {} }),
  });
  /** The keeper, made now; jobs listed once through it, and what it pinned written. */
  const listed = async () => {
    const keeper = await state.pins();
    const verdict = keeper.admit('jobs', GREET, 'enforce', true, '');
    await keeper.writePending();
    return verdict;
  };
  const pinned = () => Object.keys(sectionOf(readPins(lock), 'tools').jobs ?? {});
  /** A person replaces the server from a terminal, as an agent's server_add with force does: the same edit. */
  const replace = async (url = NEW) => {
    const ran = await runCommand(['server', 'add', 'jobs', '--url', url, '--force', '--config', config], { env: cleanEnv(), cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
  };
  return { dir, config, lock, state, listed, pinned, replace };
}

describe('PinKeeper made after the config was loaded', () => {
  it('does not pin the old server on first use when it was replaced in between, and writes nothing under the new count', async () => {
    const s = place();
    expect((await s.state.config()).mcp_servers.jobs).toMatchObject({ url: OLD });
    await s.replace();
    // The config this process serves still names the old entry: no reload happened.
    expect(s.state.live.loaded?.mcp_servers.jobs).toMatchObject({ url: OLD });
    const verdict = await s.listed();
    expect(verdict).toMatchObject({ served: [], firstUse: false });
    expect(s.pinned()).toEqual([]);
    expect(readPins(s.lock).approvals_dropped).toEqual({ jobs: 1 });
  });

  it('still pins on first use when nothing was dropped since the load', async () => {
    const s = place();
    await dropServerPins(s.lock, new Map([['jobs', true]])); // an older replacement, before this load
    await s.state.config();
    const verdict = await s.listed();
    expect(verdict.firstUse).toBe(true);
    expect(verdict.served.map((t) => t.name)).toEqual(['greet']);
    expect(s.pinned()).toEqual(['greet']);
  });

  it('a reload reads the lock with the config it serves: a replacement made before it is trusted, one made after it is not', async () => {
    const s = place();
    await s.state.config();
    await s.replace();
    expect((await s.state.reload('test')).outcome).toBe('applied');
    expect(s.state.live.loaded?.mcp_servers.jobs).toMatchObject({ url: NEW });
    // Replaced again, and not reloaded since: the entry served is the one whose approvals were dropped.
    await s.replace('https://newer.example/mcp');
    expect(await s.listed()).toMatchObject({ served: [], firstUse: false });
    expect(s.pinned()).toEqual([]);
    // Reloaded: the person's newer server is theirs to trust on first use, as any other.
    expect((await s.state.reload('test')).outcome).toBe('applied');
    expect((await s.listed()).firstUse).toBe(true);
    expect(s.pinned()).toEqual(['greet']);
  });

  it('a load that starts inside an edit (approvals dropped, config not yet written) does not wait, and its keeper trusts no server whose drops are counted', async () => {
    const s = place();
    // The edit: the config's edit lock held, the approvals dropped, the config written last (tools/shared/config-access.ts).
    const edit = await acquireLock(`${s.config}.lock`);
    try {
      await dropServerPins(s.lock, new Map([['jobs', true]]));
      // Read inside the edit: the old entry, at once, with no lock text (every count is a drop since).
      expect((await s.state.config()).mcp_servers.jobs).toMatchObject({ url: OLD });
      expect(s.state.live.pinTextAtLoad).toBe('');
      writeFileSync(s.config, `mcp_servers:\n  jobs:\n    url: ${NEW}\n`);
    } finally {
      edit.release();
    }
    // The old entry whose approvals were dropped is not pinned on first use, and nothing is written under the new count.
    expect(await s.listed()).toMatchObject({ served: [], firstUse: false });
    expect(s.pinned()).toEqual([]);
    // Reloaded outside the edit: the person's new server is theirs to trust on first use, as any other.
    expect((await s.state.reload('test')).outcome).toBe('applied');
    expect((await s.listed()).firstUse).toBe(true);
  });

  it("a lock naming a live process of this host, however old, does not delay a load (a pid reused after a killed edit, or an agent's file)", async () => {
    const s = place();
    const lockPath = `${s.config}.lock`;
    writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), token: 'stuck', time: 0 }));
    const old = new Date(Date.now() - 86_400_000);
    utimesSync(lockPath, old, old);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 5_000)));
    try {
      // Before, every load waited 15 s for such a lock, then failed with TIMEOUT.
      const loaded = await Promise.race([s.state.config(), late]);
      expect(loaded).not.toBe('late');
      expect(loaded).toMatchObject({ mcp_servers: { jobs: { url: OLD } } });
    } finally {
      clearTimeout(timer);
    }
  });

  it('a lock left by an edit whose process died is not waited for', async () => {
    const s = place();
    writeFileSync(`${s.config}.lock`, JSON.stringify({ pid: 2 ** 30, host: hostname(), token: 'gone', time: Date.now() }));
    expect((await s.state.config()).mcp_servers.jobs).toMatchObject({ url: OLD });
  });
});

describe('the drop counts compared (config/files/pin-file.ts)', () => {
  it.each([
    ['the same counts', { a: 1 }, { a: 1 }, []],
    ['a count that grew', { a: 1, b: 2 }, { a: 2, b: 2 }, ['a']],
    ['a server counted only now', {}, { a: 1 }, ['a']],
    ['a server no longer counted (a file restored)', { a: 1 }, {}, ['a']],
    ['a zero is no count', { a: 0 }, {}, []],
  ])('dropsBetween: %s', (_what, before: Record<string, number>, after: Record<string, number>, expected: string[]) => {
    expect(dropsBetween(before, after)).toEqual(expected);
  });

  it.each([
    ['no text read', undefined, undefined],
    ['no lock file', '', {}],
    ['a lock with counts', 'version: 1\nservers: {}\napprovals_dropped:\n  jobs: 2\n', { jobs: 2 }],
    ['a lock without counts', 'version: 1\nservers: {}\n', {}],
    ['a text that is no lock file: nothing counted then, every count later is a drop since', 'version: 7\n', {}],
  ])('dropCountsOf: %s', (_what, text: string | undefined, expected: Record<string, number> | undefined) => {
    expect(dropCountsOf(text, 'mcpkit.lock.yaml')).toEqual(expected);
  });
});
