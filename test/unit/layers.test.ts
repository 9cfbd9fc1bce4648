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
  // runs; these cases check the rule itself. Every failing case is one tree of its own files, all
  // cruised in one run (each run of dependency-cruiser costs about 1.5 CPU-s): each case is told
  // apart by its rule AND the file it starts from, so no case passes on another's violation.

  /** [what, files, the rule it breaks, the line the rule's error starts with]. */
  const failing: [string, Record<string, string>, string, string][] = [
    [
      'core imports the composition root',
      { 'src/core/a.ts': "import '../app/b.js';\n", 'src/app/b.ts': 'export {};\n' },
      'core-imports-up',
      'src/core/a.ts → src/app/b.ts',
    ],
    [
      'the proxy imports the tools (by a dynamic import)',
      { 'src/proxy/a.ts': "export const t = () => import('../tools/t.js');\n", 'src/tools/t.ts': 'export {};\n' },
      'proxy-imports-up',
      'src/proxy/a.ts → src/tools/t.ts',
    ],
    [
      'a tool definition imports a front end (types only)',
      { 'src/tool/a.ts': "import type { X } from '../mcp/b.js';\nexport type Y = X;\n", 'src/mcp/b.ts': 'export type X = 1;\n' },
      'tool-imports-up',
      'src/tool/a.ts → src/mcp/b.ts',
    ],
    [
      "the proxy imports the tools' context (types only)",
      {
        'src/proxy/calls/b.ts': "import type { ToolContext } from '../../tool/context.js';\nexport type C = ToolContext;\n",
        'src/tool/context.ts': 'export type ToolContext = 1;\n',
      },
      'proxy-has-its-own-call-context',
      'src/proxy/calls/b.ts → src/tool/context.ts',
    ],
    [
      'one domain imports another',
      { 'src/registry/a.ts': "import '../retrieve/b.js';\n", 'src/retrieve/b.ts': 'export {};\n' },
      'domains-are-separate',
      'src/registry/a.ts → src/retrieve/b.ts',
    ],
    ['a cycle inside one layer', { 'src/tools/a.ts': "import './b.js';\n", 'src/tools/b.ts': "import './a.js';\n" }, 'no-circular', 'src/tools/a.ts →'],
    [
      'an mcp/ sub-folder imports one above it',
      { 'src/mcp/pipeline/a.ts': "import '../http/b.js';\n", 'src/mcp/http/b.ts': 'export {};\n' },
      'mcp-pipeline-imports-up',
      'src/mcp/pipeline/a.ts → src/mcp/http/b.ts',
    ],
    [
      'a cli/ sub-folder imports its root',
      { 'src/cli/args/a.ts': "import '../main.js';\n", 'src/cli/main.ts': 'export {};\n' },
      'cli-args-imports-up',
      'src/cli/args/a.ts → src/cli/main.ts',
    ],
    [
      'a config/ sub-folder imports one above it (types only)',
      { 'src/config/schema/a.ts': "import type { X } from '../check/b.js';\nexport type Y = X;\n", 'src/config/check/b.ts': 'export type X = 1;\n' },
      'config-schema-imports-up',
      'src/config/schema/a.ts → src/config/check/b.ts',
    ],
  ];

  it('fails each import up, cross-domain import and cycle, each by its own rule', () => {
    const files = Object.assign({}, ...failing.map(([, f]) => f)) as Record<string, string>;
    expect(Object.keys(files)).toHaveLength(failing.reduce((n, [, f]) => n + Object.keys(f).length, 0)); // no case's file hides another's
    const r = cruise(tree(files));
    expect(r.ok).toBe(false);
    for (const [what, , rule, line] of failing) expect(r.output, what).toContain(`error ${rule}: ${line}`);
  });

  it('passes a tree whose imports point down', () => {
    const r = cruise(tree({ 'src/app/a.ts': "import '../tools/b.js';\n", 'src/tools/b.ts': "import '../core/c.js';\n", 'src/core/c.ts': 'export {};\n' }));
    expect(r.output).toContain('no dependency violations found');
  });
});
