import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';

/**
 * docs/SECURITY.md names, for each boundary, the one place that holds it and the test that
 * attacks it: every file it names exists, and every function named beside a file is in that file.
 */
const doc = readFileSync(join(ROOT, 'docs/SECURITY.md'), 'utf8');
const files = [...new Set([...doc.matchAll(/`((?:test|src)?\/?[a-z-]+\/[\w./-]+\.ts)`/g)].map((m) => m[1]!))];
const where = (file: string) => (file.startsWith('test/') || file.startsWith('src/') ? join(ROOT, file) : join(ROOT, 'src', file));

describe('docs/SECURITY.md names what exists', () => {
  it('names files', () => expect(files.length).toBeGreaterThan(30));
  it.each(files)('%s', (file) => expect(existsSync(where(file)), file).toBe(true));
  it('each function named right after its file is in it', () => {
    const pairs = [...doc.matchAll(/`((?:test|src)?\/?[a-z-]+\/[\w./-]+\.ts)` `([A-Za-z_][\w.]*)`/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(pairs.length).toBeGreaterThan(10);
    for (const [file, name] of pairs) expect(readFileSync(where(file), 'utf8'), `${name} in ${file}`).toContain(name.split('.').pop()!);
  });
});
