import type { ToolGroup } from '../../tool/define.js';
import { listDir } from './list-dir.js';
import { getSnippet, openFile } from './open-file.js';
import { findFiles, search, smartSearchTool } from './search.js';

export const retrieveTools = [listDir, findFiles, openFile, getSnippet, search, smartSearchTool];

export const retrieveGroup: ToolGroup = {
  name: 'retrieve',
  summary: 'reading and searching local docs and code',
  tools: retrieveTools,
  // Fail fast: configured roots that are missing, not folders or unreadable stop
  // serve before it answers anything.
  onServe: async (ctx) => {
    const { checkConfiguredRoots } = await import('./shared.js');
    await checkConfiguredRoots(ctx);
  },
};
