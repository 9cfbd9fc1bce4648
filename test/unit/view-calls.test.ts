import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/app/runtime.js';
import { terminalViewCalls } from '../../src/cli/tool-runner.js';
import { cleanEnv } from '../helpers/cli.js';
import { writeConfig } from '../helpers/upstreams.js';

/**
 * A tool calls a view's tools (OpenedView.call: `code run`) only through the call port its front
 * end hands it (CallScope.viewCalls); a view opened without one refuses every call rather than
 * reach the hub's router around the chain.
 */
describe('a view opened for a tool', () => {
  it('refuses calls without the port, and answers through it', async () => {
    const runtime = createRuntime({ configFlag: writeConfig({ mcp_servers: {} }), surface: 'cli', env: cleanEnv() });
    try {
      const unported = runtime.context();
      await expect(unported.views.with(undefined, (opened) => opened.call('no_such_tool', {}, {}))).rejects.toMatchObject({ code: 'INTERNAL' });
      // Through the port: an unknown name is the port's NOT_FOUND, said as not found, with the names like it.
      const ported = runtime.context({ viewCalls: terminalViewCalls(runtime) });
      await expect(ported.views.with(undefined, (opened) => opened.call('no_such_tool', {}, {}))).resolves.toMatchObject({ found: false, similar: [] });
    } finally {
      await runtime.close();
    }
  });
});
