import { Chalk } from 'chalk';
import { resolve } from 'node:path';
import type { Runtime } from '../app/runtime.js';
import { parseCallLine } from '../cli/call-line.js';
import type { CliIo } from '../cli/cli-io.js';
import { generatedCommandTool } from '../cli/command-table.js';
import type { ColorLevel } from '../cli/daemon-protocol.js';
import { fieldSpecs, inputFromCommandLine } from '../cli/field-specs.js';
import { formatJson } from '../cli/output.js';
import { parseToolArgs } from '../cli/tool-args.js';
import { cliWords, reportFailure, runToolForCli } from '../cli/tool-runner.js';
import { callUpstreamTool, printUpstreamResult } from '../cli/upstream-calls.js';
import type { JsonSchema } from '../core/schema.js';
import { toMcpTool } from '../tool/mcp-shape.js';

/**
 * A command line a client sent whole (`DaemonOperation` command): parsed with the fast paths'
 * parsers and run with the runner oclif's commands use, its output written to the client's
 * streams. Returns false for a line this does not take (help, typos, flags left to oclif, one of
 * mcpkit's own tools by `call`): the client then runs it the usual way.
 */
export async function runRemoteCommand(
  runtime: Runtime,
  argv: readonly string[],
  ownConfig: string,
  options: { io: CliIo; colors: { out: ColorLevel; err: ColorLevel }; cwd: string; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<boolean> {
  const { io } = options;
  const tools = await runtime.allTools();
  // A --config naming another file than this daemon's (the client guessed it from the command line) is not ours to run.
  const ours = (config: string | undefined) => config === undefined || resolve(options.cwd, config) === ownConfig;
  if (argv[0] === 'call') {
    const line = parseCallLine(argv.slice(1));
    if (!line || !ours(line.config) || tools.some((t) => t.name === line.name)) return false;
    try {
      const result = await callUpstreamTool(runtime, line.name, line.base, line.pairs);
      printUpstreamResult(line.name, result, line.json, io);
      if (line.json) io.out(formatJson(result));
    } catch (error) {
      reportFailure(error, { json: line.json, words: cliWords('call'), io });
    }
    return true;
  }
  const commandId = `${argv[0]} ${argv[1]}`;
  const tool = generatedCommandTool(tools, commandId);
  if (!tool?.warm || tool.command.afterDoubleDash) return false;
  // The tool's published schema is made once per tool (toMcpTool), not once per request.
  const specs = fieldSpecs(toMcpTool(tool).inputSchema as JsonSchema, tool.command);
  const parsed = parseToolArgs(specs, argv.slice(2), { daemonFlag: true });
  if (!parsed || parsed.noDaemon || !ours(parsed.config)) return false;
  try {
    const raw = inputFromCommandLine(specs, parsed.flags, parsed.positionals);
    const result = await runToolForCli(tool, raw, {
      runtime,
      json: parsed.json,
      color: new Chalk({ level: options.colors.out }),
      io,
      scope: { cwd: options.cwd, env: options.env, signal: options.signal },
    });
    if (parsed.json) io.out(formatJson(result));
  } catch (error) {
    reportFailure(error, { json: parsed.json, words: cliWords(commandId, tool), io });
  }
  return true;
}

/**
 * A client's streams, reached through its connection. What is printed in one turn of the event
 * loop goes as one message per stream (a search streaming its matches would otherwise send one
 * message per line); `flush` sends what is left, before the result.
 */
export function clientIo(
  send: (stream: 'out' | 'err', text: string) => void,
  colors: { out: ColorLevel; err: ColorLevel },
): CliIo & { code: number; flush(): void } {
  let pending: { stream: 'out' | 'err'; text: string } | undefined;
  let scheduled = false;
  const flush = () => {
    if (pending) send(pending.stream, pending.text);
    pending = undefined;
  };
  const put = (stream: 'out' | 'err', text: string) => {
    // Order across the two streams is kept: a switch sends what came before it.
    if (pending && pending.stream !== stream) flush();
    pending = { stream, text: (pending?.text ?? '') + text };
    if (pending.text.length >= 64 * 1024) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    }
  };
  const io = {
    code: 0,
    out: (text: string) => put('out', text),
    err: (text: string) => put('err', text),
    exitCode: (code: number) => void (io.code = code),
    outColor: new Chalk({ level: colors.out }),
    errColor: new Chalk({ level: colors.err }),
    flush,
  };
  return io;
}
