import { createToolContext } from '../config/context.js';
import { createRegistry } from '../core/registry.js';
import { allTools } from '../tools/index.js';
import { serveStdio } from './stdio.js';

export interface ServeOptions {
  configFlag?: string;
  version: string;
}

/** `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. */
export async function runServe(options: ServeOptions): Promise<void> {
  const context = createToolContext({ configFlag: options.configFlag, surface: 'mcp' });
  await serveStdio({ registry: createRegistry(allTools), context, version: options.version });
}
