import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolGroups } from '../../src/tools/index.js';
import { toMcpTool } from '../../src/tool/mcp-shape.js';
import { ROOT } from '../helpers/cli.js';

/**
 * Each tool's published shape (name, title, description, input schema, annotations) as reviewed,
 * one file per tool in test/__toolsnaps__/, as github-mcp-server keeps them: a change to what
 * agents see is a reviewed diff of that tool's file. Nothing is written unless asked
 * (UPDATE_TOOLSNAPS=1), so a new tool without a snapshot fails the run instead of passing it.
 */
const FOLDER = join(ROOT, 'test/__toolsnaps__');
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1';
const tools = toolGroups.flatMap((g) => g.tools);
const HOW = 'review the change, then write it with: UPDATE_TOOLSNAPS=1 npx vitest run test/unit/toolsnaps.test.ts';

describe('published tool shapes (test/__toolsnaps__)', () => {
  it.each(tools.map((t) => [t.name, t] as const))('%s matches its reviewed snapshot', (name, tool) => {
    const file = join(FOLDER, `${name}.json`);
    const published = `${JSON.stringify(toMcpTool(tool), null, 2)}\n`;
    if (UPDATE) {
      mkdirSync(FOLDER, { recursive: true });
      writeFileSync(file, published);
      return;
    }
    expect(existsSync(file), `no snapshot of ${name}: ${HOW}`).toBe(true);
    expect(published, `${name} changed: ${HOW}`).toBe(readFileSync(file, 'utf8'));
  });

  it('has no snapshot of a tool that is gone', () => {
    const names = new Set(tools.map((t) => `${t.name}.json`));
    const stale = existsSync(FOLDER) ? readdirSync(FOLDER).filter((f) => !names.has(f)) : [];
    expect(stale, 'remove the snapshots of tools that no longer exist').toEqual([]);
  });
});
