import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { McpkitCommand } from '../cli/base-command.js';
import { fieldSpecs, inputFromPairs } from '../cli/field-specs.js';
import { ToolError } from '../core/errors.js';
import { callUpstreamTool, printUpstreamResult, type UpstreamResult } from '../cli/upstream-calls.js';
import { terminalProgress } from '../cli/progress-bar.js';
import { inputJsonSchema } from '../core/schema.js';
import { ELICITATION_MODES, terminalRelay, type Asker, type ElicitationMode } from '../cli/elicitation-answers.js';
import { createInterface } from 'node:readline';

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
    '<%= config.bin %> call everything__trigger-elicitation-request --elicitation accept-defaults',
  ];
  static override strict = false;
  static override args = {
    tool: Args.string({ description: 'MCP name of the tool (see "mcpkit tools").', required: true }),
  };
  static override flags = {
    args: Flags.string({ char: 'a', description: 'Arguments as a JSON object, or - to read them from stdin.', helpValue: '<json>' }),
    elicitation: Flags.string({
      description:
        "Let the server ask for input during the call (elicitation, form mode), answered as this says: ask (each field put to you on stderr; answers typed, or read from stdin a line each), accept-defaults (each field's default from the form), decline or cancel. Without it the server is told mcpkit cannot be asked. The call then runs in this process, not the daemon.",
      options: [...ELICITATION_MODES],
      helpValue: '<mode>',
    }),
    ...McpkitCommand.daemonFlags,
  };

  async run(): Promise<unknown> {
    const { args, flags, argv } = await this.parse(Call);
    const pairs = (argv as string[]).slice(1);
    const base = flags.args === undefined ? {} : parseArgsJson(flags.args === '-' ? readFileSync(0, 'utf8') : flags.args);
    const runtime = this.runtime(flags.config);
    const tool = (await runtime.allTools()).find((t) => t.name === args.tool);
    if (tool) {
      return this.runTool(tool, { ...base, ...inputFromPairs(pairs, fieldSpecs(inputJsonSchema(tool.input))) }, flags.config, flags['no-daemon']);
    }
    const elicitation = flags.elicitation as ElicitationMode | undefined;
    if (elicitation === 'ask' && flags.args === '-') {
      throw new ToolError('INVALID_INPUT', '--elicitation ask reads its answers from stdin, where --args - reads the arguments.', {
        hint: 'Give the arguments as --args JSON or key=value pairs.',
      });
    }
    return this.callUpstream(args.tool, base, pairs, flags.config, flags['no-daemon'], elicitation);
  }

  /** Not one of mcpkit's own tools: look for it among the upstream servers' tools (in the daemon when one runs). */
  private async callUpstream(
    name: string,
    base: Record<string, unknown>,
    pairs: string[],
    configFlag: string | undefined,
    noDaemon: boolean,
    elicitation: ElicitationMode | undefined,
  ): Promise<unknown> {
    const runtime = this.runtime(configFlag);
    // The daemon's warm connections declare no elicitation: a call that may be asked runs here, on its own.
    const result = elicitation
      ? undefined
      : ((await this.throughDaemon(runtime, { op: 'call-upstream', name, base, pairs }, noDaemon)) as UpstreamResult | undefined);
    const relay = elicitation ? terminalRelay(elicitation, (message) => process.stderr.write(`mcpkit: ${message}\n`), stdinAsker) : undefined;
    let answered: UpstreamResult;
    // A terminal sees the call's progress as a line on stderr (run here; the daemon's calls do not relay it).
    const bar = result ? undefined : terminalProgress();
    try {
      answered = result ?? (await callUpstreamTool(runtime, name, base, pairs, relay, bar?.update));
    } finally {
      bar?.done();
      reader?.rl.close(); // a terminal's stdin would keep the process waiting
    }
    printUpstreamResult(name, answered, this.jsonEnabled());
    return answered;
  }
}

/** The one reader of stdin that every form of a call takes its answers from (closed when the call ends). */
let reader: { rl: ReturnType<typeof createInterface>; lines: AsyncIterator<string> } | undefined;

/** Prompts on stderr, answers from stdin a line each (typed at a terminal, or piped); the end of stdin is undefined. */
function stdinAsker(): Asker {
  if (!reader) {
    const rl = createInterface({ input: process.stdin, terminal: false });
    reader = { rl, lines: rl[Symbol.asyncIterator]() };
  }
  const next = reader.lines;
  return {
    say: (line) => void process.stderr.write(`${line}\n`),
    async question(prompt) {
      process.stderr.write(prompt);
      const { value, done } = await next.next();
      return done ? undefined : String(value);
    },
  };
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
