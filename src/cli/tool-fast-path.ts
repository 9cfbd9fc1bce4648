import { createRuntime } from '../app/runtime.js';
import { inputJsonSchema } from '../core/schema.js';
import { retrieveTools } from '../tools/retrieve/index.js';
import { createColor } from './terminal/color.js';
import { generatedCommandTool } from './args/command-table.js';
import { checkHabits, fieldSpecs, inputFromCommandLine } from './args/field-specs.js';
import { formatJson, sayWaiting } from './terminal/output.js';
import { parseToolArgs } from './args/tool-args.js';
import { cliWords, reportFailure, runToolForCli } from './tool-runner.js';

/**
 * The retrieve commands are what scripts and users run in loops (`retrieve search` after
 * `retrieve search`), where oclif's start-up (~100 ms here) is a large share of a search. Plain
 * command lines of generated commands run the tool directly through the same runner and error
 * reporter as oclif's commands; anything else (help, typos, bad values, a hand-written command)
 * returns false and goes through oclif for its usual messages. Only the retrieve group is loaded.
 */
export async function fastTool(argv: readonly string[]): Promise<boolean> {
  const [topic, verb, ...rest] = argv;
  const commandId = `${topic} ${verb}`;
  const tool = generatedCommandTool(retrieveTools, commandId);
  if (!tool) return false;
  const specs = fieldSpecs(inputJsonSchema(tool.input), tool.command);
  const parsed = parseToolArgs(specs, rest, { daemonFlag: tool.warm === true, ...(tool.command.habits ? { habits: tool.command.habits } : {}) });
  if (!parsed) return false;
  try {
    const raw = inputFromCommandLine(specs, parsed.flags, parsed.positionals);
    checkHabits(tool.command, parsed.habits, raw);
    const runtime = createRuntime({ configFlag: parsed.config, surface: 'cli', waiting: sayWaiting });
    const result = await runToolForCli(tool, raw, { runtime, json: parsed.json, color: createColor(process.env, process.stdout), noDaemon: parsed.noDaemon });
    if (parsed.json) process.stdout.write(formatJson(result));
  } catch (error) {
    reportFailure(error, { json: parsed.json, words: cliWords(commandId, tool) });
  }
  return true;
}
