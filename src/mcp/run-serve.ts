import { createToolContext } from '../config/context.js';
import type { ProxyHub } from '../proxy/hub.js';
import { serveStdio } from './stdio.js';

export interface ServeOptions {
  configFlag?: string;
  view?: string;
  eager?: boolean;
  version: string;
}

/**
 * `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. Exits the process
 * when the session ends, after closing every upstream (so no child process outlives us).
 */
export async function runServe(options: ServeOptions): Promise<never> {
  const context = createToolContext({ configFlag: options.configFlag, surface: 'mcp' });
  let hub: Promise<ProxyHub> | undefined;
  const getHub = () => (hub ??= import('../proxy/open-hub.js').then(({ openHub }) => openHub(context, options.version, { view: options.view })));
  let code = 0;
  try {
    if (options.eager || options.view) {
      // A named view is resolved before serving, so a typo fails at start, not on the first call.
      const ready = await getHub();
      if (options.eager) void ready.warmUp();
    }
    await serveStdio({ hub: getHub, context, version: options.version });
  } catch (error) {
    const { errorObject } = await import('../core/errors.js');
    const e = errorObject(error);
    process.stderr.write(`mcpkit serve: ${e.message}${e.hint ? `\n${e.hint}` : ''}\n`);
    code = 1;
  } finally {
    if (hub) await (await hub.catch(() => undefined))?.close();
  }
  process.exit(code);
}
