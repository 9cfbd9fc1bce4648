import type { AnyTool } from '../../tool/define.js';
import { createRegistry } from '../../tool/registry.js';
import { oclifId } from '../../tool/define.js';

/**
 * Commands that run a tool but are written by hand around it (the filter rules' order comes from
 * the raw command line; `registry list --all` follows cursors). Every other tool's command module
 * is exactly `commandFromTool(tool)`: the parity test proves it, so a command answered without
 * oclif (the fast path) is always the one oclif would run.
 */
export const HAND_WRITTEN_TOOL_COMMANDS: readonly string[] = ['code run', 'filter set', 'registry list'];

/** Commands that are not tools at all. */
export const NON_TOOL_COMMANDS: readonly string[] = [
  'call',
  'clients',
  'clients add',
  'clients list',
  'clients remove',
  'clients rotate',
  'clients set',
  'complete-names',
  'config init',
  'daemon list',
  'daemon restart',
  'daemon run',
  'daemon start',
  'daemon status',
  'daemon stop',
  'filter run',
  'filter test',
  'gateway status',
  'secret get',
  'secret list',
  'secret remove',
  'secret set',
  'serve',
  'stats',
  'tasks cancel',
  'tasks get',
  'tasks list',
  'tasks wait',
  'tools',
  'version',
];

/** The tool a generated command runs, by its spaced id (`retrieve search`); undefined for anything else. */
export function generatedCommandTool(tools: readonly AnyTool[], commandId: string): AnyTool | undefined {
  if (HAND_WRITTEN_TOOL_COMMANDS.includes(commandId)) return undefined;
  return createRegistry(tools).byCommandId(oclifId(commandId));
}
