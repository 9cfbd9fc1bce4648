import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/tool/registry.js';
import { oclifId } from '../../src/tool/define.js';
import { toMcpTool } from '../../src/tool/mcp-shape.js';
import { allTools } from '../../src/tools/index.js';
import { ROOT } from '../helpers/cli.js';
import { generatedCommandTool, HAND_WRITTEN_TOOL_COMMANDS, NON_TOOL_COMMANDS } from '../../src/cli/args/command-table.js';
import { inTerminalWords } from '../../src/cli/command-from-tool.js';

/** Commands written by hand because they are not tools (they serve, dispatch, list, preview or write whole files). */
const HAND_WRITTEN = NON_TOOL_COMMANDS.map(oclifId);

const commandFiles = readdirSync(join(ROOT, 'src/commands'), { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, '').split('/').join(':'))
  .sort();
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { summary?: string; examples?: string[] }>;
};

describe('one definition, two front ends', () => {
  const registry = createRegistry(allTools);

  it('every tool has exactly one command file, and every command file is a tool or a known hand-written command', () => {
    const toolIds = allTools.map((t) => oclifId(t.command.id));
    expect(new Set(toolIds).size).toBe(toolIds.length);
    expect(commandFiles).toEqual([...toolIds, ...HAND_WRITTEN].sort());
  });

  it.each(allTools.map((t) => [t.name, t] as const))(
    '%s: its command file is generated from that very tool, or listed as hand-written (so the fast path never bypasses it)',
    async (_name, tool) => {
      const file = join(ROOT, 'src/commands', `${tool.command.id.split(' ').join('/')}.ts`);
      const command = ((await import(file)) as { default: { tool?: unknown; generatedFrom?: unknown } }).default;
      expect(command.tool).toBe(tool);
      // commandFromTool sets generatedFrom on the class it makes; a hand-written subclass only inherits it.
      const generated = Object.hasOwn(command, 'generatedFrom') && command.generatedFrom === tool;
      expect(generated).toBe(!HAND_WRITTEN_TOOL_COMMANDS.includes(tool.command.id));
      expect(generatedCommandTool(allTools, tool.command.id)).toBe(generated ? tool : undefined);
    },
  );

  it('every tool has exactly one MCP name, published as-is', () => {
    const names = allTools.map((t) => toMcpTool(t).name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(registry.get(name)?.name).toBe(name);
  });

  it('the manifest lists exactly the commands, with their summaries and examples', () => {
    expect(Object.keys(manifest.commands).sort()).toEqual(commandFiles);
    for (const tool of allTools) {
      const entry = manifest.commands[oclifId(tool.command.id)]!;
      expect(entry.examples).toEqual(tool.command.examples);
      // In a terminal's words: the MCP names of the group's tools become commands (inTerminalWords).
      expect(entry.summary).toBe(inTerminalWords(tool.group, tool.description.split('\n')[0]!));
    }
  });

  const inGit = existsSync(join(ROOT, '.git'));
  it.runIf(inGit)('the committed oclif.manifest.json is what the build generates (commit it after changing commands)', () => {
    // npm test rebuilds the manifest first, so a difference from the committed file means it was stale.
    const committed = execFileSync('git', ['show', 'HEAD:oclif.manifest.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')).toBe(committed);
  });
});
