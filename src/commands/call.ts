import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { McpkitCommand } from '../cli/base-command.js';
import { fieldSpecs, inputFromPairs } from '../cli/field-specs.js';
import { ToolError } from '../core/errors.js';
import { closestNames, createRegistry } from '../core/registry.js';
import { inputJsonSchema } from '../core/schema.js';
import { allTools } from '../tools/index.js';

export default class Call extends McpkitCommand {
  static override summary = 'Call any tool by its MCP name with JSON arguments or key=value pairs.';
  static override description =
    'Arguments come from --args (a JSON object, or - to read it from stdin) and from key=value pairs, which win. A value is taken as text for string fields and as JSON otherwise (n=5, flag=true, tags=\'["a","b"]\' or tags=a,b).';
  static override examples = [
    '<%= config.bin %> call config_path',
    '<%= config.bin %> call config_show resolved=true',
    `<%= config.bin %> call config_show --args '{"resolved": true}' --json`,
    `echo '{"resolved":true}' | <%= config.bin %> call config_show --args -`,
  ];
  static override strict = false;
  static override args = {
    tool: Args.string({ description: 'MCP name of the tool (see "mcpkit tools").', required: true }),
  };
  static override flags = {
    args: Flags.string({ char: 'a', description: 'Arguments as a JSON object, or - to read them from stdin.', helpValue: '<json>' }),
  };

  async run(): Promise<unknown> {
    const { args, flags, argv } = await this.parse(Call);
    const registry = createRegistry(allTools);
    const tool = registry.get(args.tool);
    if (!tool) {
      const similar = closestNames(args.tool, registry.tools.map((t) => t.name));
      throw new ToolError('NOT_FOUND', `No tool named "${args.tool}".`, {
        details: { tool: args.tool, similar },
        hint: similar.length ? `Did you mean ${similar.join(', ')}? "mcpkit tools" lists them all.` : '"mcpkit tools" lists every tool.',
      });
    }
    const base = flags.args === undefined ? {} : parseArgsJson(flags.args === '-' ? readFileSync(0, 'utf8') : flags.args);
    const pairs = inputFromPairs((argv as string[]).slice(1), fieldSpecs(inputJsonSchema(tool.input)));
    return this.runTool(tool, { ...base, ...pairs }, flags.config);
  }
}

function parseArgsJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolError('INVALID_INPUT', `--args is not valid JSON: ${(error as Error).message}`, {
      hint: `Quote it for the shell: --args '{"key": "value"}'.`,
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolError('INVALID_INPUT', '--args must be a JSON object, e.g. {"key": "value"}.');
  }
  return value as Record<string, unknown>;
}
