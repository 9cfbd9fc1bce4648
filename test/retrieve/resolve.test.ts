import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolvePath, type Want } from '../../src/retrieve/resolve.js';
import { rootSpecs, validateRoots, type Root } from '../../src/retrieve/roots.js';
import { tempDir } from '../helpers/cli.js';

// Fixture: /base/b (root "docs"), /base/bc (a sibling that must stay out), /base/code (root "code"), /base/outside.
let base: string;
let roots: Root[];

beforeAll(() => {
  base = tempDir('mcpkit-roots-');
  for (const dir of ['b/guides', 'b/café', 'bc', 'code/src', 'outside', 'b/loop']) mkdirSync(join(base, dir), { recursive: true });
  writeFileSync(join(base, 'b/guides/intro.md'), '# Intro\n');
  writeFileSync(join(base, 'b/café/naïve.md'), 'unicode\n');
  writeFileSync(join(base, 'b/shared.md'), 'docs copy\n');
  writeFileSync(join(base, 'code/shared.md'), 'code copy\n');
  writeFileSync(join(base, 'code/src/main.ts'), 'export {}\n');
  writeFileSync(join(base, 'bc/secret.txt'), 'sibling secret\n');
  writeFileSync(join(base, 'outside/secret.txt'), 'outside secret\n');
  symlinkSync(join(base, 'b/guides/intro.md'), join(base, 'b/link-in.md'));
  symlinkSync(join(base, 'outside/secret.txt'), join(base, 'b/link-out.txt'));
  symlinkSync(join(base, 'outside'), join(base, 'b/dir-out'));
  symlinkSync('../bc', join(base, 'b/sibling'));
  symlinkSync(join(base, 'b/loop/x'), join(base, 'b/loop/y'));
  symlinkSync(join(base, 'b/loop/y'), join(base, 'b/loop/x'));
  symlinkSync(join(base, 'b/guides'), join(base, 'b/guides-link'));
  roots = validateRoots(rootSpecs({ configured: { docs: join(base, 'b'), code: join(base, 'code') }, configDir: base, env: {}, cwd: base, implicit: base }));
});

const ok = (path: string, want: Want, repo: string | undefined, root: string, rel: string) => ({ path, want, repo, root, rel });
const bad = (path: string, want: Want, repo: string | undefined, code: string) => ({ path, want, repo, code });

describe('resolvePath on a real tree', () => {
  it.each([
    ok('guides/intro.md', 'file', undefined, 'docs', 'guides/intro.md'),
    ok('docs/guides/intro.md', 'file', undefined, 'docs', 'guides/intro.md'),
    ok('src/main.ts', 'file', undefined, 'code', 'src/main.ts'),
  ])('finds $path in $root', ({ path, want, repo, root, rel }) => {
    const r = resolvePath(path, roots, want, repo);
    expect(r.root.name).toBe(root);
    expect(r.rel).toBe(rel);
  });

  it.each([
    ok('shared.md', 'file', 'code', 'code', 'shared.md'),
    ok('docs/shared.md', 'file', undefined, 'docs', 'shared.md'),
    ok('code/shared.md', 'file', undefined, 'code', 'shared.md'),
    ok('café/naïve.md', 'file', undefined, 'docs', 'café/naïve.md'),
    ok('link-in.md', 'file', undefined, 'docs', 'link-in.md'),
    ok('guides-link', 'dir', undefined, 'docs', 'guides-link'),
    ok('guides/../guides/intro.md', 'file', undefined, 'docs', 'guides/intro.md'),
  ])('resolves $path (repo $repo)', ({ path, want, repo, root, rel }) => {
    const r = resolvePath(path, roots, want, repo);
    expect([r.root.name, r.rel]).toEqual([root, rel]);
  });

  it.each([
    bad('shared.md', 'file', undefined, 'PATH_AMBIGUOUS'),
    bad('link-out.txt', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('dir-out/secret.txt', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('dir-out', 'dir', undefined, 'PATH_OUT_OF_ROOT'),
    bad('sibling/secret.txt', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('loop/x', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('../bc/secret.txt', 'file', 'docs', 'PATH_OUT_OF_ROOT'),
    bad('docs/../../bc/secret.txt', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('docs/../bc/secret.txt', 'file', undefined, 'FILE_NOT_FOUND'),
    bad('guides', 'file', undefined, 'FILE_NOT_FOUND'),
    bad('guides/intro.md', 'dir', undefined, 'DIR_NOT_FOUND'),
    bad('nope.md', 'file', undefined, 'FILE_NOT_FOUND'),
    bad('guides/intro.md', 'file', 'code', 'FILE_NOT_FOUND'),
    bad('guides/intro.md', 'file', 'wiki', 'REPO_INVALID'),
    bad(join('/', 'etc', 'passwd'), 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('guides/\0intro.md', 'file', undefined, 'PATH_OUT_OF_ROOT'),
    bad('', 'file', undefined, 'PATH_EMPTY'),
  ])('refuses $path ($want, repo $repo) with $code', ({ path, want, repo, code }) => {
    expect(() => resolvePath(path, roots, want, repo)).toThrow(expect.objectContaining({ code }));
  });

  it('a symlink loop is an error at once, not a hang', () => {
    const started = Date.now();
    expect(() => resolvePath('loop/y', roots, 'file')).toThrow(expect.objectContaining({ code: 'PATH_OUT_OF_ROOT', message: expect.stringContaining('loop') }));
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('roots', () => {
  it.each([
    [
      { configured: { docs: './d', code: '/abs/c' } },
      [
        ['docs', '/cfg/d'],
        ['code', '/abs/c'],
      ],
    ],
    [
      { env: { DOCS_ROOT: 'docs', CODE_ROOT: '/src' } },
      [
        ['docs', '/cwd/docs'],
        ['code', '/src'],
      ],
    ],
    [
      { configured: { wiki: 'w' }, env: { CODE_ROOT: '.' } },
      [
        ['wiki', '/cfg/w'],
        ['code', '/cwd'],
      ],
    ],
    [{ configured: { code: 'c' }, env: { CODE_ROOT: '/ignored' } }, [['code', '/cfg/c']]],
    [{ configured: { notes: { path: 'n', hidden: true } } }, [['notes', '/cfg/n']]],
    // Nothing named: the implicit root the caller chose (a terminal: /cwd; serve: the config's folder), or none.
    [{}, [['code', '/cwd']]],
    [{ implicit: '/cfg' }, [['code', '/cfg']]],
    [{ implicit: undefined }, []],
  ])('%j', (options, expected) => {
    const specs = rootSpecs({ configDir: '/cfg', cwd: '/cwd', env: {}, implicit: '/cwd', ...options });
    expect(specs.map((s) => [s.name, s.path])).toEqual(expected);
  });

  it.each([
    [{ docs: '' }, 'MISSING_ROOT'],
    [{ docs: 'does-not-exist' }, 'ROOT_NOT_FOUND'],
    [{ docs: 'b/guides/intro.md' }, 'ROOT_NOT_DIRECTORY'],
  ])('fails fast on %j with %s', (configured, reason) => {
    expect(() => validateRoots(rootSpecs({ configured, configDir: base, env: {}, cwd: base, implicit: base }))).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', details: expect.objectContaining({ reason }) }),
    );
  });
});
