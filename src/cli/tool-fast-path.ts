import { errorObject, exitCodeFor } from '../core/errors.js';
import { inputJsonSchema } from '../core/schema.js';
import type { AnyTool } from '../core/tool.js';
import { retrieveTools } from '../tools/retrieve/index.js';
import { createColor } from './color.js';
import { fieldSpecs, inputFromCommandLine } from './field-specs.js';
import { formatJson } from './output.js';
import { parseToolArgs } from './tool-args.js';
import { reportError, runToolForCli } from './tool-runner.js';

/**
 * The retrieve commands are what scripts and users run in loops (`retrieve search` after
 * `retrieve search`), where oclif's start-up (~100 ms here) is a large share of a search. Plain
 * command lines run the tool directly, printing exactly what the oclif command would; anything
 * else (help, typos, bad values) returns false and goes through oclif for its usual messages.
 */
const FAST_TOOLS: readonly AnyTool[] = retrieveTools;

export async function fastTool(argv: readonly string[]): Promise<boolean> {
  const [topic, verb, ...rest] = argv;
  const tool = FAST_TOOLS.find((t) => t.command.id === `${topic} ${verb}`);
  if (!tool) return false;
  const specs = fieldSpecs(inputJsonSchema(tool.input), tool.command);
  const parsed = parseToolArgs(specs, rest);
  if (!parsed) return false;
  try {
    const raw = inputFromCommandLine(specs, parsed.flags, parsed.positionals);
    const result = await runToolForCli(tool, raw, { configFlag: parsed.config, json: parsed.json, color: createColor(process.env, process.stdout) });
    if (parsed.json) process.stdout.write(formatJson(result));
  } catch (error) {
    const published = errorObject(error);
    reportError(published, parsed.json);
    process.exitCode = exitCodeFor(published);
  }
  return true;
}
