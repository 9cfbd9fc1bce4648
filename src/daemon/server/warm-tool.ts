import type { Runtime } from '../../app/runtime.js';
import { ToolError } from '../../core/errors.js';
import { parseToolInput } from '../../tool/mcp-shape.js';
import { terminalViewCalls } from '../../cli/tool-runner.js';
import type { DaemonMessage, DaemonOperation, DaemonRequest } from '../client/protocol.js';

/**
 * One of mcpkit's own warm tools run for a command (`op: tool`), as the command would run it
 * itself (cli/tool-runner.ts): in the command's folder and environment, its items streamed back,
 * its calls of a view's tools through the terminal's call port.
 */
export async function runWarmTool(
  runtime: Runtime,
  operation: Extract<DaemonOperation, { op: 'tool' }>,
  request: DaemonRequest,
  send: (message: DaemonMessage) => void,
  signal: AbortSignal,
): Promise<unknown> {
  const tool = (await runtime.allTools()).find((t) => t.name === operation.tool && t.warm);
  if (!tool) throw new ToolError('NOT_FOUND', `mcpkit daemon does not run the tool "${operation.tool}".`);
  const input = parseToolInput(tool, operation.input);
  const emit = operation.stream ? (item: unknown) => send({ type: 'item', item }) : undefined;
  const caller = { cwd: request.cwd, env: request.env };
  const scope = { createsConfig: tool.createsConfig === true, ...caller, signal, viewCalls: terminalViewCalls(runtime, caller) };
  return tool.run(input, runtime.context({ ...scope, ...(emit ? { emit } : {}) }));
}
