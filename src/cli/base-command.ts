import { Command, Errors, Flags } from '@oclif/core';
import { createToolContext } from '../config/context.js';
import { errorObject, exitCodeFor, type ErrorObject } from '../core/errors.js';
import type { AnyTool, ToolContext } from '../core/tool.js';
import { createColor } from './color.js';
import { formatJson } from './output.js';
import { printLine, reportError, runToolForCli } from './tool-runner.js';

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
    return runToolForCli(tool, raw, { configFlag, json: this.jsonEnabled(), color: this.color });
  }

  protected print(text: string): void {
    printLine(text);
  }

  override logJson(json: unknown): void {
    process.stdout.write(formatJson(json));
  }

  override async catch(error: Error & { exitCode?: number }): Promise<void> {
    let published: ErrorObject;
    let exit: number;
    if (error instanceof Errors.ExitError) throw error; // this.exit(n): not an error to report
    if (error instanceof Errors.CLIError) {
      // The arguments were parsed, and refused: without this oclif warns "did not parse its
      // arguments" on stderr whenever NODE_ENV is development or test.
      this.parsed = true;
      // oclif's own parse errors (unknown flag, missing argument, bad option value): bad usage.
      const command = this.id ? ` ${this.id.replace(/:/g, ' ')}` : '';
      const message = error.message.replace(/\n?See more help with --help\s*$/, '');
      published = { code: 'INVALID_INPUT', message, hint: `Run "${this.config.bin}${command} --help".` };
      exit = 2;
    } else {
      published = errorObject(error);
      exit = exitCodeFor(published);
    }
    reportError(published, this.jsonEnabled());
    process.exitCode = exit;
  }
}
