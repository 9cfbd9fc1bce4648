import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { McpkitCommand } from '../cli/base-command.js';
import { fieldSpecs, inputFromPairs } from '../cli/field-specs.js';
import { exitCodeFor, isErrorCode, ToolError, type ErrorObject } from '../core/errors.js';
import { reportError } from '../cli/tool-runner.js';
import { notFound } from '../core/suggest.js';
import { inputJsonSchema, type JsonSchema } from '../core/schema.js';

export default class Call extends McpkitCommand {
  static override summary = "Call any tool, mcpkit's own or an upstream server's, by its MCP name.";
  static override description =
    'Arguments come from --args (a JSON object, or - to read it from stdin) and from key=value pairs, which win. A value is taken as text for string fields and as JSON otherwise (n=5, flag=true, tags=\'["a","b"]\' or tags=a,b).\nUpstream tools go by the names "mcpkit serve" publishes (e.g. github__search_code when several servers are configured); with --json their MCP result is printed as is.';
  static override examples = [
    '<%= config.bin %> call config_path',
    '<%= config.bin %> call config_show resolved=true',
    `<%= config.bin %> call config_show --args '{"resolved": true}' --json`,
    `echo '{"resolved":true}' | <%= config.bin %> call config_show --args -`,
    '<%= config.bin %> call everything__echo message=hello',
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
    const pairs = (argv as string[]).slice(1);
    const base = flags.args === undefined ? {} : parseArgsJson(flags.args === '-' ? readFileSync(0, 'utf8') : flags.args);
    const runtime = this.runtime(flags.config);
    const tool = (await runtime.allTools()).find((t) => t.name === args.tool);
    if (tool) {
      return this.runTool(tool, { ...base, ...inputFromPairs(pairs, fieldSpecs(inputJsonSchema(tool.input))) }, flags.config);
    }
    return this.callUpstream(args.tool, base, pairs, flags.config);
  }

  /** Not one of mcpkit's own tools: look for it among the upstream servers' tools. */
  private async callUpstream(name: string, base: Record<string, unknown>, pairs: string[], configFlag: string | undefined): Promise<unknown> {
    const runtime = this.runtime(configFlag);
    return runtime.withHub(undefined, async (hub) => {
      const entry = await hub.entry(name);
      if (!entry || entry.kind === 'local') {
        const down = hub
          .status()
          .filter((s) => s.state === 'down')
          .map((s) => s.name);
        const unusable = Object.keys((await runtime.config()).unusable ?? {})
          .filter((unit) => unit.startsWith('mcp_servers.'))
          .map((unit) => unit.slice('mcp_servers.'.length));
        const otherwise = [
          '"mcpkit tools" lists every tool.',
          down.some((s) => !unusable.includes(s)) ? `Not reachable now: ${down.filter((s) => !unusable.includes(s)).join(', ')}.` : '',
          unusable.length ? `Set aside for problems in the config (see "mcpkit server list"): ${unusable.join(', ')}.` : '',
        ]
          .filter(Boolean)
          .join(' ');
        throw notFound('tool', name, await hub.names(), otherwise, { unavailable_servers: down });
      }
      const input = { ...base, ...inputFromPairs(pairs, fieldSpecs(entry.tool.inputSchema as JsonSchema)) };
      const result = await hub.callEntry(entry, input, runtime.context());
      const text = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      if (result.isError) {
        // A failure goes to stderr as every command's does: mcpkit's own error object, or the
        // tool's own words as an UPSTREAM_ERROR. With --json the MCP result is printed as is.
        const own = (result.structuredContent as { error?: ErrorObject } | undefined)?.error;
        const published: ErrorObject = isErrorCode(own?.code) ? own! : { code: 'UPSTREAM_ERROR', message: `${name} failed: ${text || 'no details'}` };
        if (this.jsonEnabled()) process.exitCode = exitCodeFor(published);
        else reportError(published, false);
        return result;
      }
      if (!this.jsonEnabled()) this.print(text || JSON.stringify(result.structuredContent ?? {}, null, 2));
      return result;
    });
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
