import { describe, expect, it } from 'vitest';
import { inTerminalWords } from '../../src/cli/command-from-tool.js';
import { allTools } from '../../src/tools/index.js';

describe('inTerminalWords: MCP tool names in a command help become commands', () => {
  it.each([
    ['arango', 'Restore a folder written by arango_backup_graph: done.', 'Restore a folder written by arango backup-graph: done.'],
    ['arango', 'like arango_bulk_insert.', 'like arango bulk-insert.'],
    ['arango', 'the mcp_schemas collection', 'the mcp_schemas collection'],
    ['server', 'see server_diff and server_approve', 'see server diff and server approve'],
    ['server', 'not arango_query', 'not arango_query'],
  ])('%s: %s', (group, text, words) => {
    expect(inTerminalWords(group, text)).toBe(words);
  });

  it('every command a help text is made to name exists', () => {
    const commands = new Set(allTools.map((t) => t.command.id));
    const named = allTools.flatMap((t) =>
      [...inTerminalWords(t.group, t.description).matchAll(new RegExp(`(?<![\\w-])(${t.group} [a-z0-9-]+)`, 'g'))]
        .map((m) => m[1]!)
        .filter((id) => !t.description.includes(id)),
    );
    expect(named.filter((id) => !commands.has(id))).toEqual([]);
    expect(named.length).toBeGreaterThan(0);
  });
});
