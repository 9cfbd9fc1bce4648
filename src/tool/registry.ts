import type { AnyTool } from './define.js';
import { oclifId } from './define.js';

export interface ToolRegistry {
  readonly tools: readonly AnyTool[];
  get(name: string): AnyTool | undefined;
  /** The tool a generated command runs, by oclif id (`retrieve:search`). */
  byCommandId(oclifCommandId: string): AnyTool | undefined;
}

/** Refuses duplicate MCP names and duplicate command ids: both front ends must map one-to-one. */
export function createRegistry(tools: readonly AnyTool[]): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  const byCommand = new Map<string, AnyTool>();
  for (const tool of tools) {
    const prior = byName.get(tool.name);
    if (prior) throw new Error(`Duplicate tool name "${tool.name}" (groups ${prior.group} and ${tool.group}); every tool needs a unique MCP name.`);
    const id = oclifId(tool.command.id);
    const priorCommand = byCommand.get(id);
    if (priorCommand) throw new Error(`Duplicate command "${tool.command.id}" (tools ${priorCommand.name} and ${tool.name}).`);
    byName.set(tool.name, tool);
    byCommand.set(id, tool);
  }
  return {
    tools: [...tools],
    get: (name) => byName.get(name),
    byCommandId: (id) => byCommand.get(id),
  };
}
