import { describe, expect, it } from 'vitest';
import {
  CACHES_KEPT,
  cacheFileName,
  cachesToPrune,
  codeCachePlace,
  isPrivateFile,
  isSafeParent,
  scriptHash,
  userCacheRoot,
  type PathFacts,
  type PlaceFacts,
} from '../../src/cli/code-cache-place.js';

const ME = 1000;
const dir = (over: Partial<PathFacts> = {}): PathFacts => ({ uid: ME, mode: 0o40755, kind: 'dir', writable: true, ...over });
const place = (over: Partial<PlaceFacts>): PlaceFacts => ({ uid: ME, codeDir: { path: '/pkg/dist/cli', facts: dir() }, ...over });
const user = (facts: PathFacts | undefined, parent: PathFacts | undefined = dir()) => ({ path: '/home/me/.cache/mcpkit/code-cache', facts, parent });

describe('codeCachePlace: a cache is code, kept only where no one else can write', () => {
  it.each<[string, PlaceFacts, string | undefined]>([
    ["the code's folder, mine alone", place({}), '/pkg/dist/cli'],
    ['no owners on this platform', place({ uid: undefined }), undefined],
    ['code folder group-writable, no user cache root', place({ codeDir: { path: '/pkg/dist/cli', facts: dir({ mode: 0o40775 }) } }), undefined],
    [
      'code folder group-writable: the user cache',
      place({ codeDir: { path: '/pkg/dist/cli', facts: dir({ mode: 0o40775 }) }, userDir: user(dir({ mode: 0o40700 })) }),
      '/home/me/.cache/mcpkit/code-cache',
    ],
    [
      "code folder another user's (a global install by root): the user cache",
      place({ codeDir: { path: '/usr/lib/node_modules/mcpkit/dist/cli', facts: dir({ uid: 0 }) }, userDir: user(dir({ mode: 0o40700 })) }),
      '/home/me/.cache/mcpkit/code-cache',
    ],
    [
      'code folder mine but read-only: the user cache',
      place({ codeDir: { path: '/pkg/dist/cli', facts: dir({ mode: 0o40555, writable: false }) }, userDir: user(dir({ mode: 0o40700 })) }),
      '/home/me/.cache/mcpkit/code-cache',
    ],
    ['code folder world-writable', place({ codeDir: { path: '/tmp/x', facts: dir({ mode: 0o40777 }) }, userDir: user(undefined) }), undefined],
    [
      "user cache folder another user's",
      place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ uid: 1001, mode: 0o40700 })) }),
      undefined,
    ],
    ['user cache folder group-writable', place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ mode: 0o40770 })) }), undefined],
    ['user cache folder a file', place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ kind: 'file', mode: 0o100600 })) }), undefined],
    [
      'user cache folder a symlink (lstat)',
      place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ kind: 'other', mode: 0o120777 })) }),
      undefined,
    ],
    [
      'its parent writable by others, not sticky: it could be swapped',
      place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ mode: 0o40700 }), dir({ uid: 0, mode: 0o40777 })) }),
      undefined,
    ],
    [
      'its parent /tmp-like (sticky): kept',
      place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ mode: 0o40700 }), dir({ uid: 0, mode: 0o41777 })) }),
      '/home/me/.cache/mcpkit/code-cache',
    ],
    [
      "its parent another user's",
      place({ codeDir: { path: '/pkg', facts: dir({ uid: 0 }) }, userDir: user(dir({ mode: 0o40700 }), dir({ uid: 1001, mode: 0o40755 })) }),
      undefined,
    ],
    ['the code folder missing', place({ codeDir: { path: '/pkg', facts: undefined }, userDir: user(undefined) }), undefined],
  ])('%s', (_name, facts, expected) => {
    const got = codeCachePlace(facts);
    expect(got.dir).toBe(expected);
    if (expected === undefined) expect('why' in got && got.why).toBeTruthy();
  });

  it('root keeps a cache beside code root owns, not beside a user’s', () => {
    expect(codeCachePlace(place({ uid: 0, codeDir: { path: '/opt/mcpkit/dist/cli', facts: dir({ uid: 0 }) } })).dir).toBe('/opt/mcpkit/dist/cli');
    expect(codeCachePlace(place({ uid: 0, codeDir: { path: '/home/me/mcpkit/dist/cli', facts: dir({ uid: ME }) } })).dir).toBeUndefined();
  });
});

describe('isPrivateFile and isSafeParent', () => {
  it.each<[PathFacts, boolean]>([
    [{ uid: ME, mode: 0o100600, kind: 'file', writable: false }, true],
    [{ uid: ME, mode: 0o100644, kind: 'file', writable: false }, true],
    [{ uid: ME, mode: 0o100664, kind: 'file', writable: false }, false],
    [{ uid: 1001, mode: 0o100600, kind: 'file', writable: false }, false],
    [{ uid: ME, mode: 0o40700, kind: 'dir', writable: false }, false],
  ])('file %o: %s', (facts, expected) => expect(isPrivateFile(facts, ME)).toBe(expected));

  it.each<[PathFacts | undefined, boolean]>([
    [dir(), true],
    [dir({ uid: 0 }), true],
    [dir({ uid: 1001 }), false],
    [dir({ mode: 0o40775 }), false],
    [dir({ uid: 0, mode: 0o41777 }), true],
    [dir({ kind: 'other' }), false],
    [undefined, false],
  ])('parent %o: %s', (facts, expected) => expect(isSafeParent(facts, ME)).toBe(expected));
});

describe('userCacheRoot', () => {
  it.each<[Record<string, string | undefined>, string | undefined, string | undefined]>([
    [{ XDG_CACHE_HOME: '/x/cache' }, '/home/me', '/x/cache'],
    [{ XDG_CACHE_HOME: 'relative' }, '/home/me', '/home/me/.cache'],
    [{ XDG_CACHE_HOME: '' }, '/home/me', '/home/me/.cache'],
    [{}, '/home/me', '/home/me/.cache'],
    [{}, undefined, undefined],
    [{}, 'relative-home', undefined],
  ])('%o with home %s: %s', (env, home, expected) => expect(userCacheRoot(env, home)).toBe(expected));
});

describe('the cache is named after the script it was made for', () => {
  it.each<[string, string | undefined]>([
    ['// mcpkit-script 0123456789abcdef', '0123456789abcdef'],
    ['// mcpkit-script 0123456789ABCDEF', undefined],
    ['// mcpkit-script 0123456789abcde', undefined],
    ['// mcpkit-script 0123456789abcdef ', undefined],
    ['"use strict";', undefined],
    ['', undefined],
  ])('%j: %s', (line, expected) => expect(scriptHash(line)).toBe(expected));

  it('another build or another V8 never meets this cache', () => {
    const name = cacheFileName('serve-fast-path', '0123456789abcdef', '11.3.244.8-node.38');
    expect(name).toBe('serve-fast-path.0123456789abcdef.11.3.244.8-node.38.v8cache');
    expect(cacheFileName('serve-fast-path', 'fedcba9876543210', '11.3.244.8-node.38')).not.toBe(name);
    expect(cacheFileName('serve-fast-path', '0123456789abcdef', '12.4.254.21-node.33')).not.toBe(name);
    // Nothing in a V8 version string makes a path of the name.
    expect(cacheFileName('serve-fast-path', '0123456789abcdef', '../../x y')).toBe('serve-fast-path.0123456789abcdef..._.._x_y.v8cache');
  });
});

describe('cachesToPrune', () => {
  const cache = (hash: string, mtimeMs: number) => ({ name: cacheFileName('serve-fast-path', hash, '11.3'), mtimeMs });
  const now = 1_000_000;

  it('keeps the newest caches of the entry, the one just written among them', () => {
    const written = cache('a'.repeat(16), now);
    const older = ['b', 'c', 'd', 'e', 'f'].map((h, i) => cache(h.repeat(16), now - 1000 * (i + 1)));
    const pruned = cachesToPrune([written, ...older], 'serve-fast-path', written.name, now);
    expect(pruned).toEqual(older.slice(CACHES_KEPT - 1).map((f) => f.name));
  });

  it("never touches the code beside it, another entry's caches, or a write still under way", () => {
    const written = cache('a'.repeat(16), now);
    const files = [
      written,
      ...['b', 'c', 'd', 'e'].map((h) => cache(h.repeat(16), 0)),
      { name: 'serve-fast-path.js', mtimeMs: 0 },
      { name: 'serve-fast-path.script.cjs', mtimeMs: 0 },
      { name: 'serve-fast-path.script.cjs.map', mtimeMs: 0 },
      { name: 'other-entry.0123456789abcdef.11.3.v8cache', mtimeMs: 0 },
      { name: `${cache('1'.repeat(16), 0).name}.123.tmp`, mtimeMs: now - 1000 },
      { name: `${cache('2'.repeat(16), 0).name}.456.tmp`, mtimeMs: now - 120_000 },
    ];
    expect(cachesToPrune(files, 'serve-fast-path', written.name, now).sort()).toEqual(
      [cache('e'.repeat(16), 0).name, `${cache('2'.repeat(16), 0).name}.456.tmp`].sort(),
    );
  });
});
