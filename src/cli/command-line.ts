import { Chalk } from 'chalk';
import { resolve } from 'node:path';
import type { Runtime } from '../app/runtime.js';
import type { JsonSchema } from '../core/schema.js';
import { toMcpTool } from '../tool/mcp-shape.js';
import type { AnyTool } from '../tool/define.js';
import { parseCallLine } from './args/call-line.js';
import type { CliIo } from './terminal/cli-io.js';
import { generatedCommandTool } from './args/command-table.js';
import type { ColorLevel } from '../daemon/client/protocol.js';
import { checkHabits, fieldSpecs, inputFromCommandLine } from './args/field-specs.js';
import { formatJson } from './terminal/output.js';
import { parseToolArgs } from './args/tool-args.js';
import { cliWords, reportFailure, runToolForCli } from './tool-runner.js';
import { callUpstreamTool, printUpstreamResult } from './upstream-calls.js';

export interface CommandLineOptions {
  io: CliIo;
  colors: { out: ColorLevel; err: ColorLevel };
  /** Where the command runs and its environment. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /**
   * The runtime for the config the line names with --config (undefined: none named), or
   * undefined when this caller does not run lines of that config (the daemon answers for its own).
   */
  runtimeFor(configFlag: string | undefined): Runtime | undefined;
  /** Which generated commands this caller runs (the daemon: those of warm tools). Default: all. */
  takes?: (tool: AnyTool) => boolean;
}

/**
 * A whole command line, parsed without oclif and run with the runner oclif's commands use, its
 * output into `io`: `call` of an upstream tool, and every command generated from a tool (a
 * command line after `--` excepted). Returns false for a line it does not take (help, typos, flags
 * left to oclif, `call` of one of mcpkit's own tools, a hand-written command): the caller then
 * runs it through oclif. The daemon answers its clients with it, and tests run commands in their
 * own process with it.
 */
export async function runCommandLine(argv: readonly string[], options: CommandLineOptions): Promise<boolean> {
  const { io } = options;
  if (argv[0] === 'call') {
    const line = parseCallLine(argv.slice(1));
    const runtime = line ? options.runtimeFor(line.config && resolve(options.cwd, line.config)) : undefined;
    if (!line || !runtime || (await runtime.allTools()).some((t) => t.name === line.name)) return false;
    try {
      const result = await callUpstreamTool(runtime, line);
      printUpstreamResult(line.name, result, line.json, io);
      if (line.json) io.out(formatJson(result));
    } catch (error) {
      reportFailure(error, { json: line.json, words: cliWords('call'), io });
    }
    return true;
  }
  const commandId = `${argv[0]} ${argv[1]}`;
  const { toolGroups } = await import('../tools/index.js');
  const tool = generatedCommandTool(
    toolGroups.flatMap((g) => g.tools),
    commandId,
  );
  // A command line after `--` (server add NAME -- COMMAND ARGS) is oclif's to split; without one,
  // the line is plain flags and words like any other.
  if (!tool || (tool.command.afterDoubleDash && argv.includes('--')) || (options.takes && !options.takes(tool))) return false;
  // The tool's published schema is made once per tool (toMcpTool), not once per request.
  const specs = fieldSpecs(toMcpTool(tool).inputSchema as JsonSchema, tool.command);
  const parsed = parseToolArgs(specs, argv.slice(2), { daemonFlag: true, ...(tool.command.habits ? { habits: tool.command.habits } : {}) });
  if (!parsed || parsed.noDaemon) return false;
  const runtime = options.runtimeFor(parsed.config && resolve(options.cwd, parsed.config));
  if (!runtime) return false;
  try {
    const raw = inputFromCommandLine(specs, parsed.flags, parsed.positionals);
    checkHabits(tool.command, parsed.habits, raw);
    const result = await runToolForCli(tool, raw, {
      runtime,
      json: parsed.json,
      color: new Chalk({ level: options.colors.out }),
      io,
      scope: { cwd: options.cwd, env: options.env, ...(options.signal ? { signal: options.signal } : {}) },
    });
    if (parsed.json) io.out(formatJson(result));
  } catch (error) {
    reportFailure(error, { json: parsed.json, words: cliWords(commandId, tool), io });
  }
  return true;
}
