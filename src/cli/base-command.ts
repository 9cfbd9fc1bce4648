import { Command, Errors, Flags, type Interfaces } from '@oclif/core';

type FlagInput = Interfaces.FlagInput;
import { createRuntime, type Runtime } from '../app/runtime.js';
import { closestNames } from '../core/suggest.js';
import type { ToolContext } from '../tool/context.js';
import type { AnyTool } from '../tool/define.js';
import type { DaemonOperation } from '../daemon/client/protocol.js';
import { commandScope, type CommandScope } from './terminal/command-scope.js';
import { jqExpression, jqText, loadJq, type JqRunner } from './terminal/jq-output.js';
import { formatJson, sayWaiting } from './terminal/output.js';
import { cliWords, printLine, reportError, reportFailure, runToolForCli } from './tool-runner.js';

/** --config, which every command takes; a command without --json (serve, filter run, daemon run) takes only this one of the shared flags. */
export const CONFIG_FLAG = Flags.string({
  description: 'Config file to use (default: $MCPKIT_CONFIG, ./mcpkit.yaml, then ~/.config/mcpkit/config.yaml).',
  helpGroup: 'GLOBAL',
});

/**
 * Shared by every mcpkit command: the global --config flag, --json, and the one mapping of
 * errors to output and exit codes (0 ok, 1 tool error, 2 bad usage).
 */
export abstract class McpkitCommand extends Command {
  static override enableJsonFlag = true;
  // Typed as a table so that a command without --json (serve) can keep only --config.
  static override baseFlags: FlagInput = {
    config: CONFIG_FLAG,
    jq: Flags.string({
      description: "Filter the JSON output with a jq expression, as gh --jq (implies --json; a string prints raw), e.g. --jq '.[].name'.",
      helpGroup: 'GLOBAL',
    }),
  };

  /** For the commands that use `mcpkit daemon` when one runs (call, tools, retrieve, view tools, server test). */
  static readonly daemonFlags = {
    'no-daemon': Flags.boolean({ description: 'Do the work in this process even when mcpkit daemon runs (also MCPKIT_NO_DAEMON=1).' }),
  };

  /** Where this command prints, and its environment and folder (./command-scope.ts). */
  protected readonly scope: CommandScope = commandScope();
  protected readonly color = this.scope.io.outColor;
  private made?: Runtime;
  private interruptible = false;

  /** The process's runtime (one per command run). */
  protected runtime(configFlag: string | undefined): Runtime {
    const { env, cwd, daemon } = this.scope;
    if (this.made) return this.made;
    if (daemon) return (this.made = daemon);
    this.made = createRuntime({ configFlag, env, cwd, surface: 'cli', version: this.config.version, waiting: sayWaiting });
    this.scope.made?.push(this.made);
    return this.made;
  }

  /**
   * Ctrl-C or SIGTERM while this command's upstream servers run: they are ended first, as serve
   * ends them, then the command exits as the signal would have ended it (128 + its number); a
   * second Ctrl-C ends it at once. Its servers run in sessions of their own (launch-plan.ts), so a
   * terminal's Ctrl-C reaches the command alone and ending them is its job. A command a host
   * runs in its own process (./command-scope.ts) is no process of its own: its host's signals are not its.
   */
  protected endUpstreamsOnInterrupt(runtime: Runtime): void {
    if (this.interruptible || this.scope.hosted) return;
    this.interruptible = true;
    for (const [signal, number] of [
      ['SIGINT', 2],
      ['SIGTERM', 15],
    ] as const)
      process.once(signal, () => {
        // A server that does not end on its stdin's close gets SIGTERM, then SIGKILL, within this.
        setTimeout(() => process.exit(128 + number), 6000).unref();
        void runtime.close().finally(() => process.exit(128 + number));
      });
  }

  protected toolContext(configFlag: string | undefined): ToolContext {
    return this.runtime(configFlag).context();
  }

  /** Validates, runs and renders one tool; returns the result so oclif prints it under --json. */
  protected async runTool(tool: AnyTool, raw: unknown, configFlag: string | undefined, noDaemon = false): Promise<unknown> {
    const runtime = this.runtime(configFlag);
    this.endUpstreamsOnInterrupt(runtime);
    // Run by the daemon for a client: the tool works in the client's folder and environment, as in its own process.
    const { daemon, cwd, env } = this.scope;
    return runToolForCli(tool, raw, {
      runtime,
      json: this.jsonEnabled(),
      color: this.color,
      noDaemon,
      io: this.scope.io,
      ...(daemon ? { scope: { cwd, env } } : {}),
    });
  }

  /** The work done by mcpkit daemon when one runs for this config (and may do it); undefined: do it here. */
  protected async throughDaemon(runtime: Runtime, operation: DaemonOperation, noDaemon: boolean): Promise<unknown> {
    const { throughDaemon } = await import('../daemon/client/use.js');
    return (await throughDaemon(runtime, operation, { noDaemon }))?.result;
  }

  protected print(text: string): void {
    printLine(text);
  }

  private jq?: JqRunner;

  /** --jq implies --json. */
  override jsonEnabled(): boolean {
    return super.jsonEnabled() || jqExpression(this.argv) !== undefined;
  }

  /** An error prints as JSON under --json; under --jq alone as words on stderr, so $(... --jq) never holds one. */
  private errorsAsJson(): boolean {
    return super.jsonEnabled();
  }

  override async init(): Promise<void> {
    await super.init();
    // jq answers synchronously once loaded, so that logJson (which oclif calls without waiting) can use it.
    if (jqExpression(this.argv) !== undefined) this.jq = await loadJq();
  }

  override logJson(json: unknown): void {
    const expression = jqExpression(this.argv);
    if (expression === undefined || !this.jq) return this.scope.io.out(formatJson(json));
    let text: string;
    try {
      text = jqText(this.jq, expression, json, this.color.level > 0);
    } catch (error) {
      reportFailure(error, { json: false, words: cliWords(this.id?.replace(/:/g, ' '), undefined, this.config.bin), io: this.scope.io });
      this.exit(2);
    }
    this.scope.io.out(text);
  }

  override async catch(error: Error & { exitCode?: number }): Promise<void> {
    if (error instanceof Errors.ExitError) throw error; // this.exit(n): not an error to report
    const commandId = this.id?.replace(/:/g, ' ');
    if (error instanceof Errors.CLIError) {
      // The arguments were parsed, and refused: without this oclif warns "did not parse its
      // arguments" on stderr whenever NODE_ENV is development or test.
      this.parsed = true;
      // oclif's own parse errors (unknown flag, missing argument, bad option value): bad usage.
      const message = error.message.replace(/\n?See more help with --help\s*$/, '');
      const help = cliWords(commandId, undefined, this.config.bin).inputHint;
      const guess = flagGuess(message, [...flagNames(this.constructor as FlagTables), 'help']);
      reportError({ code: 'INVALID_INPUT', message, hint: guess ? `Did you mean ${guess}? ${help}` : help }, this.errorsAsJson(), this.scope.io);
      return;
    }
    const { tool, fieldWords } = this.constructor as { tool?: AnyTool; fieldWords?: Record<string, string> };
    reportFailure(error, { json: this.errorsAsJson(), words: cliWords(commandId, tool, this.config.bin, fieldWords), io: this.scope.io });
  }
}

interface FlagTables {
  flags?: Record<string, unknown>;
  baseFlags?: Record<string, unknown>;
  enableJsonFlag?: boolean;
}

/** Every flag a command takes: its own, the shared ones (--config) and oclif's --json. Pure. */
export function flagNames(command: FlagTables): string[] {
  return [...Object.keys(command.flags ?? {}), ...Object.keys(command.baseFlags ?? {}), ...(command.enableJsonFlag ? ['json'] : [])];
}

/** The closest flag of the command to the one oclif found nonexistent (`--comand`: `--command`), or undefined. Pure. */
export function flagGuess(message: string, flags: readonly string[]): string | undefined {
  const typed = /Nonexistent flags?: --([\w-]+)/.exec(message)?.[1];
  if (!typed) return undefined;
  const [closest] = closestNames(typed, flags, 1);
  return closest && closest !== typed ? `--${closest}` : undefined;
}
