import type { ChalkInstance } from 'chalk';
import { createToolContext } from '../config/context.js';
import type { ErrorObject } from '../core/errors.js';
import { parseInput } from '../core/schema.js';
import type { AnyTool } from '../core/tool.js';
import { createColor } from './color.js';
import { formatError, formatJson } from './output.js';
import { createRenderUi, renderGeneric } from './render.js';

/**
 * Running one tool for the terminal, shared by oclif's commands and the fast path so both print
 * exactly the same: validate, run, then the tool's rendering unless --json (the caller prints the
 * returned result as JSON, oclif through logJson).
 */
export async function runToolForCli(tool: AnyTool, raw: unknown, options: { configFlag?: string; json: boolean; color: ChalkInstance }): Promise<unknown> {
  const input = parseInput(tool.name, tool.input, raw, tool.invalidInputCode);
  const result = await tool.run(input, createToolContext({ configFlag: options.configFlag, surface: 'cli' }));
  if (!options.json) {
    const ui = createRenderUi(options.color);
    const text = tool.render ? await tool.render(result, ui, input) : renderGeneric(result, ui);
    if (text !== '') printLine(text);
  }
  return result;
}

/** Human output. Written directly (oclif's log goes through console.log, which test runners capture). */
export function printLine(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** An error as the CLI reports it: JSON on stdout under --json (scripts read one stream), else text on stderr. */
export function reportError(published: ErrorObject, json: boolean): void {
  if (json) process.stdout.write(formatJson({ error: published }));
  else process.stderr.write(formatError(published, createColor(process.env, process.stderr)));
}
