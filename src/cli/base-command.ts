import { Command, Errors, Flags } from '@oclif/core';
import { createToolContext } from '../config/context.js';
import { errorObject, exitCodeFor, type ErrorObject } from '../core/errors.js';
import { parseInput } from '../core/schema.js';
import type { AnyTool, ToolContext } from '../core/tool.js';
import { createColor } from './color.js';
import { formatError, formatJson } from './output.js';
import { createRenderUi, renderGeneric } from './render.js';

/**
 * Shared by every mcpkit command: the global --config flag, --json, and the one mapping of
 * errors to output and exit codes (0 ok, 1 tool error, 2 bad usage).
 */
export abstract class McpkitCommand extends Command {
  static override enableJsonFlag = true;
  static override baseFlags = {
    config: Flags.string({
      description: 'Config file to use (default: $MCPKIT_CONFIG, ./mcpkit.yaml, then ~/.config/mcpkit/config.yaml).',
      helpGroup: 'GLOBAL',
    }),
  };

  protected readonly color = createColor(process.env, process.stdout);

  protected toolContext(configFlag: string | undefined): ToolContext {
    return createToolContext({ configFlag, surface: 'cli' });
  }

  /** Validates, runs and renders one tool; returns the result so oclif prints it under --json. */
  protected async runTool(tool: AnyTool, raw: unknown, configFlag: string | undefined): Promise<unknown> {
    const input = parseInput(tool.name, tool.input, raw);
    const result = await tool.run(input, this.toolContext(configFlag));
    if (!this.jsonEnabled()) {
      const ui = createRenderUi(this.color);
      const text = tool.render ? await tool.render(result, ui) : renderGeneric(result, ui);
      if (text !== '') this.print(text);
    }
    return result;
  }

  /** Human output. Written directly (oclif's log goes through console.log, which test runners capture). */
  protected print(text: string): void {
    process.stdout.write(`${text}\n`);
  }

  override logJson(json: unknown): void {
    process.stdout.write(formatJson(json));
  }

  override async catch(error: Error & { exitCode?: number }): Promise<void> {
    let published: ErrorObject;
    let exit: number;
    if (error instanceof Errors.ExitError) throw error; // this.exit(n): not an error to report
    if (error instanceof Errors.CLIError) {
      // oclif's own parse errors (unknown flag, missing argument, bad option value): bad usage.
      const command = this.id ? ` ${this.id.replace(/:/g, ' ')}` : '';
      const message = error.message.replace(/\n?See more help with --help\s*$/, '');
      published = { code: 'INVALID_INPUT', message, hint: `Run "${this.config.bin}${command} --help".` };
      exit = 2;
    } else {
      published = errorObject(error);
      exit = exitCodeFor(published);
    }
    if (this.jsonEnabled()) this.logJson({ error: published });
    else process.stderr.write(formatError(published, createColor(process.env, process.stderr)));
    process.exitCode = exit;
  }
}
