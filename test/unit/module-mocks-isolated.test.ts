import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** Every test file under test/, recursively. */
function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('module mocks', () => {
  // vitest.config.ts: a mock in a worker whose modules earlier files loaded may not apply, and the
  // test then passes testing nothing; only the `seams` project gives each file modules of its own.
  it('are used only in files named *-seams.test.ts, which run with modules of their own', () => {
    const mocking = testFiles(join(ROOT, 'test'))
      .filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(mocking.length).toBeGreaterThan(0);
    expect(mocking.filter((file) => !file.endsWith('-seams.test.ts'))).toEqual([]);
  });
});
