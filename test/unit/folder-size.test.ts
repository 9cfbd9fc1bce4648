import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';

/**
 * The folder rule (issue 68): no folder of src/ holds more than 30 files directly, so a folder
 * that grows past what a reader takes in at a glance is split by subsystem, as proxy/ and mcp/
 * were. src/commands/ is the exception: oclif finds a command by its path, one file per command.
 */
const MOST_FILES = 30;
const EXEMPT = 'commands';

/** Every folder under `src` (but commands/) with more than MOST_FILES files directly in it, with its count. */
function crowdedFolders(src: string): string[] {
  const crowded: string[] = [];
  const visit = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    const files = entries.filter((e) => e.isFile()).length;
    if (files > MOST_FILES) crowded.push(`${relative(src, dir)}: ${files} files`);
    for (const e of entries) if (e.isDirectory() && !(dir === src && e.name === EXEMPT)) visit(join(dir, e.name));
  };
  visit(src);
  return crowded;
}

describe('the folder rule', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** A src/ tree with `count` files in each folder named. */
  function tree(folders: Record<string, number>): string {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-test-folders-'));
    for (const [folder, count] of Object.entries(folders)) {
      mkdirSync(join(dir, folder), { recursive: true });
      for (let i = 0; i < count; i++) writeFileSync(join(dir, folder, `f${i}.ts`), '');
    }
    return dir;
  }

  it.each([
    ['30 files in a folder', { mcp: 30 }, []],
    ['31 files in a folder', { mcp: 31 }, ['mcp: 31 files']],
    ['31 files in a sub-folder', { 'proxy/calls': 31, proxy: 2 }, ['proxy/calls: 31 files']],
    ['any number in commands/ and its sub-folders', { commands: 40, 'commands/arango': 35 }, []],
    ['a folder named commands below the top', { 'cli/commands': 31 }, ['cli/commands: 31 files']],
  ])('%s', (_what, folders, expected) => {
    expect(crowdedFolders(tree(folders))).toEqual(expected);
  });

  it('holds for src/ (split a crowded folder by subsystem, with its layer rule in .dependency-cruiser.cjs)', () => {
    expect(crowdedFolders(join(ROOT, 'src'))).toEqual([]);
  });
});
