import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../src/config/files/lock.js';
import { dropServerPins, readPins, sectionOf } from '../../../src/config/files/pin-file.js';
import { PinKeeper } from '../../../src/proxy/pins/pin-keeper.js';
import { createLogger } from '../../../src/core/logger.js';
import { tempDir } from '../../helpers/cli.js';

/**
 * A server replaced under its name (an agent's server_add with force) has its pins dropped in the
 * lock file, then the config names the new one; a serving process sees both at its own pace, and
 * the old server may list meanwhile. Whatever the order, the approvals of the old server never
 * reach the new one, and never come back to the file. Real files; the PinKeeper of one process,
 * its config swapped as a reload would.
 */
type Entry = { url: string; added_by?: string };
const GREET: Tool[] = [{ name: 'greet', description: 'Greets someone.', inputSchema: { type: 'object' } }];
const PERSON: Entry = { url: 'https://old.example/mcp' };
const AGENT: Entry = { url: 'https://evil.example/mcp', added_by: 'agent' };
const PERSON_NEW: Entry = { url: 'https://new.example/mcp' };

function keeperFor(entry: Entry | undefined) {
  const dir = tempDir();
  const path = join(dir, 'mcpkit.lock.yaml');
  const config: { jobs: Entry | undefined } = { jobs: entry };
  const keeper = new PinKeeper(path, createLogger('silent'), () => {}, {
    entryOf: (server) => (server === 'jobs' ? config.jobs : undefined),
    lockAnswersListings: () => false,
    dropsAtLoad: () => undefined,
  });
  const pinned = () => Object.keys(sectionOf(readPins(path), 'tools').jobs ?? {});
  const served = () => keeper.admit('jobs', GREET, 'enforce', true, '').served.map((t) => t.name);
  /** The server replaced or removed: its approvals dropped in the lock, as the edit does (tools/shared/config-access.ts). */
  const drop = () => dropServerPins(path, new Map([['jobs', true]]));
  /** Listed once, pinned on first use, and written. */
  const pinnedFirst = async () => {
    served();
    await keeper.writePending();
  };
  return { dir, path, keeper, pinned, served, config, drop, pinnedFirst };
}

describe('PinKeeper: a server replaced under its name', () => {
  it('first-use pins still on their way when the approvals are dropped are never written', async () => {
    const s = keeperFor(PERSON);
    expect(s.served()).toEqual(['greet']); // first use: queued for the next batch
    await s.drop();
    await s.keeper.writePending();
    expect(s.pinned()).toEqual([]);
  });

  it('the old server listing again after the drop is read is not pinned again on first use', async () => {
    const s = keeperFor(PERSON);
    expect(s.served()).toEqual(['greet']);
    await s.keeper.writePending();
    expect(s.pinned()).toEqual(['greet']);
    await s.drop();
    expect(s.keeper.refresh()).toEqual(['jobs']);
    expect(s.served()).toEqual([]);
    await s.keeper.writePending();
    expect(s.pinned()).toEqual([]);
  });

  it('an agent’s server served before the file is read again gets nothing from the old pins, nor after', async () => {
    const s = keeperFor(PERSON);
    await s.pinnedFirst();
    await s.drop();
    s.config.jobs = AGENT; // the reload applied the new entry; the pins are read after it
    expect(s.served()).toEqual([]);
    expect(s.keeper.refresh(() => PERSON)).toEqual(['jobs']);
    expect(s.served()).toEqual([]);
    await s.keeper.writePending();
    expect(s.pinned()).toEqual([]);
  });

  it('the pins held for one entry approve nothing for another until the file is read again, then as the file says', async () => {
    const s = keeperFor(PERSON);
    await s.pinnedFirst();
    // A person edits the entry by hand: no drop, the pins in the file still hold, once read for it.
    s.config.jobs = PERSON_NEW;
    expect(s.served()).toEqual([]);
    expect(s.keeper.refresh()).toEqual(['jobs']);
    expect(s.served()).toEqual(['greet']);
  });

  it('a person’s replacement is pinned on first use again, and another process’s late pins of the old one stay out', async () => {
    const s = keeperFor(PERSON);
    const other = new PinKeeper(s.path, createLogger('silent'), () => {}, {
      entryOf: () => PERSON,
      lockAnswersListings: () => false,
      dropsAtLoad: () => undefined,
    });
    // Another replica, still serving the old entry, whose greet says something else.
    const old = [{ ...GREET[0]!, description: 'Greets someone, the old way.' }];
    expect(other.admit('jobs', old, 'enforce', true, '').firstUse).toBe(true);
    await s.drop();
    s.config.jobs = PERSON_NEW; // the reload applied the new entry; the pins are read after it
    s.keeper.refresh(() => PERSON);
    expect(s.served()).toEqual(['greet']);
    await other.writePending();
    await s.keeper.writePending();
    const file = readPins(s.path);
    // Written first, the old pins would have stayed (the file keeps the first pins written).
    expect(sectionOf(file, 'tools').jobs?.greet?.definition.description).toBe('Greets someone.');
    expect(file.approvals_dropped).toEqual({ jobs: 1 });
  });

  it('a server removed and added again as it was, by a person, is trusted on first use again', async () => {
    const s = keeperFor(PERSON);
    await s.pinnedFirst();
    await s.drop(); // server remove
    s.config.jobs = undefined;
    s.keeper.refresh(() => PERSON);
    s.config.jobs = { ...PERSON }; // server add, the same entry: nothing left to drop
    s.keeper.refresh(() => undefined);
    expect(s.served()).toEqual(['greet']);
  });

  it('a name new to the config with nothing pinned leaves the lock file as it is', async () => {
    const s = keeperFor(undefined);
    await dropServerPins(s.path, new Map([['jobs', false]]));
    expect(existsSync(s.path)).toBe(false);
    writeFileSync(s.path, 'version: 1\nservers: {}\n');
    await dropServerPins(s.path, new Map([['jobs', false]]));
    expect(readFileSync(s.path, 'utf8')).toBe('version: 1\nservers: {}\n');
  });
});

describe('PinKeeper.writePending', () => {
  it('two at once (a runtime closed twice: SIGINT, then SIGTERM) both end with the pins written, even while another process holds the lock', async () => {
    const s = keeperFor(PERSON);
    expect(s.served()).toEqual(['greet']); // first use: queued for the next batch
    const held = await acquireLock(`${s.path}.lock`);
    const ends: string[][] = [];
    const first = s.keeper.writePending().then(() => void ends.push(s.pinned()));
    const second = s.keeper.writePending().then(() => void ends.push(s.pinned()));
    await new Promise((r) => setTimeout(r, 300));
    expect(ends).toEqual([]); // neither ended while the batch waited for the lock
    held.release();
    await Promise.all([first, second]);
    expect(ends).toEqual([['greet'], ['greet']]);
  });
});
