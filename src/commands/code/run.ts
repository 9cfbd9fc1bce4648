import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { McpkitCommand } from '../../cli/base-command.js';
import { ToolError } from '../../core/errors.js';
import { summaryOf } from '../../tool/define.js';
import { codeRun } from '../../tools/code/run.js';

/** Written by hand around the code_run tool: the script is read here (a file, or stdin with -), where the person is. */
export default class CodeRun extends McpkitCommand {
  static readonly tool = codeRun;
  static override summary = summaryOf(codeRun);
  static override description = `${codeRun.description}\nThe script's value is printed (text as it is, anything else as JSON), what it logs goes to stderr; with --json, the whole result (value, logs, calls). Exit code 0, or 1 with the script's error on stderr.`;
  static override examples = [...codeRun.command.examples];
  static override args = {
    file: Args.string({ description: 'The script (JavaScript or TypeScript), or - to read it from stdin.', required: true }),
  };
  static override flags = {
    view: Flags.string({ description: 'The view whose tools the script calls (default: the default view).' }),
    'timeout-ms': Flags.integer({ description: "Wall time of this run (default: the view's code.timeout_ms, else 30000).", min: 100, max: 3_600_000 }),
    ...McpkitCommand.daemonFlags,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CodeRun);
    let code: string;
    try {
      code = args.file === '-' ? readFileSync(0, 'utf8') : readFileSync(resolve(this.scope.cwd, args.file), 'utf8');
    } catch (error) {
      throw new ToolError('FILE_ACCESS', `Cannot read the script ${args.file}: ${(error as Error).message}.`, {
        hint: 'Give a script file, or - to read it from stdin.',
      });
    }
    return this.runTool(
      codeRun,
      { code, ...(flags.view !== undefined ? { view: flags.view } : {}), ...(flags['timeout-ms'] !== undefined ? { timeout_ms: flags['timeout-ms'] } : {}) },
      flags.config,
      flags['no-daemon'],
    );
  }
}
