import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/root.js';
import { sourceFiles } from '../helpers/source-files.js';

/**
 * docs/ARCHITECTURE.md names files, classes and their methods: every one it names exists, so the
 * page cannot drift from the code unseen (it once named Runtime.newUpstream long after it went).
 */
const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

const scripts = (name: string) => /\.(ts|mjs|cjs)$/.test(name);
const files = ['src', 'test', 'bench'].flatMap((dir) => sourceFiles(join(ROOT, dir), scripts));
const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));

/** A path as the page writes it: from the repository, from src/, or within the folder its section is about (then by its name). */
function exists(path: string): boolean {
  if ([ROOT, join(ROOT, 'src')].some((base) => existsSync(join(base, path)))) return true;
  if (path.includes('/') && !/^[a-z-]+\/[\w.-]+$/.test(path)) return false;
  return files.some((f) => f.endsWith(`/${path}`) || basename(f) === path);
}

const named = [...new Set(spans.flatMap((span) => [...span.matchAll(/(?:^|[\s(])((?:[\w.-]+\/)*[\w.-]+\.(?:ts|mjs|cjs))\b/g)].map((m) => m[1]!)))];
const members = [...new Set(spans.flatMap((span) => [...span.matchAll(/\b([A-Z][a-z][A-Za-z]*)\.([a-z][A-Za-z]+)\b/g)].map((m) => `${m[1]}.${m[2]}`)))];

/** The files that declare a class, interface or type of this name. */
const declaring = (name: string) => [...texts].filter(([, text]) => new RegExp(`(class|interface|type) ${name}\\b`).test(text)).map(([file]) => file);

describe('docs/ARCHITECTURE.md names what exists', () => {
  it('names files and members', () => {
    expect(named.length).toBeGreaterThan(60);
    expect(members.length).toBeGreaterThan(15);
  });
  it.each(named)('the file %s', (path) => expect(exists(path), path).toBe(true));
  it.each(members)('%s', (member) => {
    const [owner, name] = member.split('.') as [string, string];
    const where = declaring(owner);
    expect(where.length, `${owner} is declared somewhere`).toBeGreaterThan(0);
    const declared = new RegExp(`(^|\\s)(async |get |static |readonly |private |protected )*${name}(\\(|<|:|\\?| =)`, 'm');
    expect(
      where.some((file) => declared.test(texts.get(file)!)),
      `${name} in ${where.join(', ')}`,
    ).toBe(true);
  });
});
