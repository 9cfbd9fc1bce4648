import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const depcruise = join(ROOT, 'node_modules/.bin/depcruise');
const config = join(ROOT, '.dependency-cruiser.cjs');

/** Runs the layer check on a tree; returns its output and whether it passed. */
function cruise(cwd: string): { ok: boolean; output: string } {
  try {
    return { ok: true, output: execFileSync(depcruise, ['src', '--config', config], { cwd, encoding: 'utf8', stdio: 'pipe' }) };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the layer rule (.dependency-cruiser.cjs)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function tree(files: Record<string, string>): string {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-test-layers-'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  // That the project holds is checked once, by `npm run check:layers` in `npm test`, before any test
  // runs; these cases check the rule itself.

  it.each([
    ['core imports the composition root', { 'src/core/a.ts': "import '../app/b.js';\n", 'src/app/b.ts': 'export {};\n' }, 'core-imports-up'],
    [
      'the proxy imports the tools (by a dynamic import)',
      { 'src/proxy/a.ts': "export const t = () => import('../tools/b.js');\n", 'src/tools/b.ts': 'export {};\n' },
      'proxy-imports-up',
    ],
    [
      'a tool definition imports a front end (types only)',
      { 'src/tool/a.ts': "import type { X } from '../mcp/b.js';\nexport type Y = X;\n", 'src/mcp/b.ts': 'export type X = 1;\n' },
      'tool-imports-up',
    ],
    ['one domain imports another', { 'src/registry/a.ts': "import '../retrieve/b.js';\n", 'src/retrieve/b.ts': 'export {};\n' }, 'domains-are-separate'],
    ['a cycle inside one layer', { 'src/tools/a.ts': "import './b.js';\n", 'src/tools/b.ts': "import './a.js';\n" }, 'no-circular'],
  ])('fails when %s', (_what, files, rule) => {
    const r = cruise(tree(files));
    expect(r.ok).toBe(false);
    expect(r.output).toContain(rule);
  });

  it('fails an import up between the sub-folders of mcp/, cli/ and config/, or from one to its root', () => {
    const r = cruise(
      tree({
        'src/mcp/pipeline/a.ts': "import '../http/b.js';\n",
        'src/mcp/http/b.ts': 'export {};\n',
        'src/cli/args/a.ts': "import '../main.js';\n",
        'src/cli/main.ts': 'export {};\n',
        'src/config/schema/a.ts': "import type { X } from '../check/b.js';\nexport type Y = X;\n",
        'src/config/check/b.ts': 'export type X = 1;\n',
      }),
    );
    expect(r.ok).toBe(false);
    for (const rule of ['mcp-pipeline-imports-up', 'cli-args-imports-up', 'config-schema-imports-up']) expect(r.output).toContain(rule);
  });

  it('passes a tree whose imports point down', () => {
    const r = cruise(tree({ 'src/app/a.ts': "import '../tools/b.js';\n", 'src/tools/b.ts': "import '../core/c.js';\n", 'src/core/c.ts': 'export {};\n' }));
    expect(r.output).toContain('no dependency violations found');
  });
});
