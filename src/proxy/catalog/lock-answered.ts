import type { Tool } from '@modelcontextprotocol/server';
import { answersFromLock } from '../pins/lock-listing.js';
import type { ToolSource } from './tool-sources.js';
import type { ResolvedView } from './view.js';

/** The view's servers still starting whose listing the lock answers (serve, pinning enforce), with the tools it approves. */
export function lockAnswered(
  view: Pick<ResolvedView, 'servers' | 'pinning'>,
  sources: ReadonlyMap<string, ToolSource>,
  approved: (server: string) => Tool[] | undefined,
): Map<ToolSource, Tool[]> {
  const out = new Map<ToolSource, Tool[]>();
  for (const { name, config } of view.servers) {
    const source = sources.get(name)!;
    const tools = approved(name);
    if (answersFromLock(source, config.pinning ?? view.pinning, tools)) out.set(source, tools);
  }
  return out;
}
