import type { CallToolResult } from '@modelcontextprotocol/client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';

/**
 * The MCP search tool takes rg's -B/-A (before_context, after_context), -m (max_count) and -o
 * (only_matching), from serve's warm index on the main thread and, for an expression that may
 * backtrack, in a worker: the same matches either way.
 */
describe('search over MCP: before_context, after_context, max_count, only_matching', () => {
  it('gives the same shaped matches on the main thread and in the worker', async () => {
    const dir = tempDir('mcpkit-search-shape-');
    writeFileSync(join(dir, 't.txt'), 'foo\na\nb\nfoo\nfoo\nc\nd\ne\nfoo\n');
    const { client } = await serveStdioInProcess({ argv: [], env: cleanEnv({ CODE_ROOT: dir }), name: 'r' });
    try {
      const shape = { before_context: 1, after_context: 2, max_count: 2, only_matching: true };
      const expected = [
        { repo: 'code', path: 'code/t.txt', line: 1, text: 'foo', matched: ['foo'], before: [], after: ['a', 'b'] },
        // -m 2 stops at line 4; line 5 matches inside its after-context, so rg prints it as a match.
        {
          repo: 'code',
          path: 'code/t.txt',
          line: 4,
          text: 'foo',
          matched: ['foo'],
          before: ['b'],
          after: ['foo', 'c'],
          context_matched: { '5': ['foo'] },
          after_matches: [5],
        },
      ];
      // A literal runs on the main thread; a backreference is an expression only a backtracking engine runs: a worker's.
      for (const query of [{ query: 'foo' }, { query: 'f(o)\\1', regex: true }]) {
        const r = (await client.callTool({ name: 'search', arguments: { ...query, ...shape } })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
        const { result, meta } = r.structuredContent as { result: { matches: unknown[] }; meta: { truncated: boolean } };
        expect(result.matches, query.query).toEqual(expected);
        expect(meta.truncated).toBe(false);
      }
      const counted = (await client.callTool({ name: 'search', arguments: { query: 'o', only_matching: true, count: true, max_count: 3 } })) as CallToolResult;
      expect((counted.structuredContent as { result: { counts: unknown[] } }).result.counts).toEqual([{ repo: 'code', path: 'code/t.txt', count: 6 }]);
      // A line of 1500 matches gives 1000 parts over MCP, on the main thread and in the worker (a lookbehind).
      writeFileSync(join(dir, 'many.txt'), `${'x'.repeat(1500)}\n`);
      for (const query of [{ query: 'x' }, { query: '(?<=x|^)x', regex: true }]) {
        const many = (await client.callTool({ name: 'search', arguments: { ...query, only_matching: true, glob: 'many.txt' } })) as CallToolResult;
        const [match] = (many.structuredContent as { result: { matches: { matched: string[] }[] } }).result.matches;
        expect(match!.matched, query.query).toHaveLength(1000);
      }
      const tooMuch = (await client.callTool({ name: 'search', arguments: { query: 'foo', after_context: 21 } })) as CallToolResult;
      expect(tooMuch.isError).toBe(true);
      expect(JSON.stringify(tooMuch.structuredContent ?? tooMuch.content)).toContain('after_context');
    } finally {
      await client.close();
    }
  });
});
