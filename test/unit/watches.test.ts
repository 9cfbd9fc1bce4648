import type { FSWatcher } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reconcileWatches } from '../../src/core/watches.js';

/** A watch that only records whether it was closed: what reconcileWatches does to a watch is close it. */
function watchOf(closed: string[], folder: string): FSWatcher {
  return { close: () => void closed.push(folder) } as unknown as FSWatcher;
}

describe('reconcileWatches', () => {
  it.each([
    ['none watched: every wanted folder is to watch', [], ['/a', '/b'], [], ['/a', '/b']],
    ['all watched: nothing to do', ['/a', '/b'], ['/b', '/a'], [], []],
    ['one gone, one new', ['/a', '/b'], ['/b', '/c'], ['/a'], ['/c']],
    ['nothing wanted: every watch closes', ['/a', '/b'], [], ['/a', '/b'], []],
    ['a folder wanted twice is watched once', [], ['/a', '/a', '/b'], [], ['/a', '/b']],
  ])('%s', (_what, watched, wanted, closedExpected, toWatch) => {
    const closed: string[] = [];
    const handles = new Map(watched.map((folder) => [folder, watchOf(closed, folder)]));
    expect(reconcileWatches(handles, wanted)).toEqual(toWatch);
    expect(closed).toEqual(closedExpected);
    expect([...handles.keys()].sort()).toEqual(watched.filter((f) => wanted.includes(f)).sort());
  });
});
