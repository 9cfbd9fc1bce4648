import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigWatcher } from '../../src/config/config-watcher.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/upstreams.js';

/** Real files, real inotify: each way a config is edited in practice reaches serve, in one call per burst. */
describe('ConfigWatcher', () => {
  const watchers: ConfigWatcher[] = [];
  afterEach(() => watchers.splice(0).forEach((w) => w.close()));

  async function watching(path: string, debounceMs = 50) {
    const seen = { calls: 0 };
    const watcher = new ConfigWatcher({ path, debounceMs, changed: () => void seen.calls++ });
    watchers.push(watcher);
    await watcher.start();
    return seen;
  }
  const quiet = () => new Promise((r) => setTimeout(r, 200));

  it('sees an atomic rename over the file (the way mcpkit edits it), once', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    writeFileSync(file, 'a: 1\n');
    const seen = await watching(file);
    writeFileSync(join(dir, '.mcpkit.yaml.tmp'), 'a: 2\n');
    renameSync(join(dir, '.mcpkit.yaml.tmp'), file);
    expect(await waitFor(() => seen.calls === 1, 2000)).toBe(true);
    await quiet();
    expect(seen.calls).toBe(1);
  });

  it('sees an edit in place and a file written after the watch began, and not other files of the folder', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcpkit.yaml');
    const seen = await watching(file);
    writeFileSync(join(dir, 'notes.txt'), 'unrelated');
    await quiet();
    expect(seen.calls).toBe(0);
    writeFileSync(file, 'a: 1\n');
    expect(await waitFor(() => seen.calls === 1, 2000)).toBe(true);
    writeFileSync(file, 'a: 2\n');
    expect(await waitFor(() => seen.calls === 2, 2000)).toBe(true);
  });

  it('follows a symlinked config: an edit of the target, and the link pointed at another file', async () => {
    const dir = tempDir();
    const targets = join(dir, 'dotfiles');
    mkdirSync(targets);
    writeFileSync(join(targets, 'one.yaml'), 'a: 1\n');
    writeFileSync(join(targets, 'two.yaml'), 'a: 2\n');
    const link = join(dir, 'mcpkit.yaml');
    symlinkSync(join(targets, 'one.yaml'), link);
    const seen = await watching(link);
    writeFileSync(join(targets, 'one.yaml'), 'a: 3\n');
    expect(await waitFor(() => seen.calls === 1, 2000)).toBe(true);
    rmSync(link);
    symlinkSync(join(targets, 'two.yaml'), link);
    expect(await waitFor(() => seen.calls === 2, 2000)).toBe(true);
    await quiet();
    writeFileSync(join(targets, 'two.yaml'), 'a: 4\n');
    expect(await waitFor(() => seen.calls === 3, 2000)).toBe(true);
  });

  it('says when the folder does not exist, apart from a failure (a user config never written is not a problem)', async () => {
    const reasons: string[] = [];
    const missing: string[] = [];
    const watcher = new ConfigWatcher({
      path: '/nonexistent-folder/mcpkit.yaml',
      changed: () => {},
      failed: (r) => reasons.push(r),
      missing: (f) => missing.push(f),
    });
    watchers.push(watcher);
    await watcher.start();
    expect(missing).toEqual(['/nonexistent-folder']);
    expect(reasons).toEqual([]);
  });
});
