import { describe, expect, it } from 'vitest';
import { TextCache, type Cached } from '../../src/retrieve/text-cache.js';

/** Blocks of 16 bytes, three of them: small enough to see every move. */
const cacheOf = () => new TextCache(48, 16);
const text = (t: string) => Buffer.from(t);
const kept = (entries: Record<string, Cached>) =>
  Object.entries(entries)
    .filter(([, e]) => e.content)
    .map(([name, e]) => `${name}=${e.content!.toString()}`)
    .sort();

/** Fills the cache with six 8-byte texts no search used (as the first walk of a tree does). */
function filled(cache: TextCache): Record<string, Cached> {
  const entries: Record<string, Cached> = {};
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
    entries[name] = {};
    expect(cache.keep(entries[name], text(name.repeat(8)), 8)).toBe(true);
  }
  return entries;
}

describe('TextCache', () => {
  it('keeps any text while the budget has room, then no text that no search used', () => {
    const cache = cacheOf();
    const entries = filled(cache);
    expect(cache.allocated).toBe(48);
    expect(cache.live()).toBe(48);
    const g: Cached = {};
    expect(cache.mayKeep(g, 8)).toBe(false);
    expect(cache.keep(g, text('gggggggg'), 8)).toBe(false);
    expect(kept(entries)).toEqual(['a=aaaaaaaa', 'b=bbbbbbbb', 'c=cccccccc', 'd=dddddddd', 'e=eeeeeeee', 'f=ffffffff']);
  });

  it.each([
    // [texts the search used from the cache, what is kept after]: the oldest block with anything to
    // drop is emptied (a-b, then c-d), its used texts move forward, and only as much as is needed
    [[], ['c', 'd', 'e', 'f', 'g']],
    [['a'], ['a', 'c', 'd', 'e', 'f', 'g']],
    [
      ['a', 'b'],
      ['a', 'b', 'e', 'f', 'g'],
    ],
    [
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'e', 'f', 'g'],
    ],
  ])('makes room for text a search read from disk; it had used %j', (used, expected) => {
    const cache = cacheOf();
    const entries = filled(cache);
    const search = cache.next();
    for (const name of used) entries[name]!.used = search;
    const g: Cached = { used: search };
    entries.g = g;
    expect(cache.keep(g, text('gggggggg'), 8)).toBe(true);
    expect(kept(entries).map((k) => k[0])).toEqual(expected);
    // The moved texts are still what they were.
    for (const name of used) expect(entries[name]!.content!.toString()).toBe(name.repeat(8));
    expect(cache.allocated).toBe(48);
  });

  it('never evicts the text of the search that wants room, so a search larger than the budget keeps what it first got', () => {
    const cache = cacheOf();
    const entries = filled(cache);
    const search = cache.next();
    for (const e of Object.values(entries)) e.used = search;
    const g: Cached = { used: search };
    expect(cache.keep(g, text('gggggggg'), 8)).toBe(false);
    expect(kept(entries)).toHaveLength(6);
    // Known full for this search: its next candidate is refused without a look (and its file is not read for it).
    expect(cache.mayKeep({ used: search }, 8)).toBe(false);
    // A later search may evict what only the earlier one used.
    const later = cache.next();
    entries.a!.used = later;
    const h: Cached = { used: later };
    expect(cache.keep(h, text('hhhhhhhh'), 8)).toBe(true);
    expect(kept({ ...entries, h }).map((k) => k[0])).toEqual(['a', 'c', 'd', 'e', 'f', 'h']);
  });

  it('reclaims the space of forgotten texts (a changed file) when room is needed', () => {
    const cache = cacheOf();
    const entries = filled(cache);
    const search = cache.next();
    for (const e of Object.values(entries)) e.used = search;
    entries.c!.content = undefined; // its file changed (file-index.ts forget)
    expect(cache.live()).toBe(40);
    const g: Cached = { used: search };
    expect(cache.keep(g, text('gggggggg'), 8)).toBe(true);
    expect(kept({ ...entries, g }).map((k) => k[0])).toEqual(['a', 'b', 'd', 'e', 'f', 'g']);
    expect(cache.live()).toBe(48);
  });

  it('keeps nothing larger than a block, nor anything with a budget under two blocks', () => {
    expect(cacheOf().keep({}, text('x'.repeat(17)), 17)).toBe(false);
    expect(new TextCache(31, 16).keep({}, text('x'), 1)).toBe(false);
    expect(new TextCache(0, 16).mayKeep({}, 1)).toBe(false);
  });
});
