import { Args, Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { McpkitCommand } from '../cli/base-command.js';
import { fieldSpecs, inputFromPairs } from '../cli/args/field-specs.js';
import { ToolError } from '../core/errors.js';
import { callUpstreamTool, printUpstreamResult, type UpstreamResult } from '../cli/upstream-calls.js';
import { terminalProgress } from '../cli/terminal/progress-bar.js';
import { inputJsonSchema } from '../core/schema.js';
import { ELICITATION_MODES, terminalRelay, type Asker, type ElicitationMode } from '../cli/terminal/elicitation-answers.js';
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
    '<%= config.bin %> call everything__trigger-long-running-operation duration=60 --task',
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
    view: Flags.string({
      description:
        'The view whose tool it is (tool_views), its pins, hooks and conditions applying as to an agent of that view; the default view (serve without --view) when left out. Upstream and composite tools.',
      helpValue: '<name>',
    }),
    task: Flags.boolean({
      description:
        "Start the call as a task in this config's daemon (started if none runs) and print its id at once; follow it with mcpkit tasks wait|get|cancel ID. Upstream tools only.",
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
    const line = { name: args.tool, base, pairs, ...(flags.view !== undefined ? { view: flags.view } : {}) };
    if (flags.task) return this.startTask(line, flags.config, flags['no-daemon'], flags.elicitation !== undefined);
    const elicitation = flags.elicitation as ElicitationMode | undefined;
    if (elicitation === 'ask' && flags.args === '-') {
      throw new ToolError('INVALID_INPUT', '--elicitation ask reads its answers from stdin, where --args - reads the arguments.', {
        hint: 'Give the arguments as --args JSON or key=value pairs.',
      });
    }
    return this.callUpstream(line, flags.config, flags['no-daemon'], elicitation);
  }

  /** `call --task`: the call runs in the daemon (started if none runs), which answers with the task at once. */
  private async startTask(line: CallLine, configFlag: string | undefined, noDaemon: boolean, asks: boolean) {
    if (noDaemon || asks) {
      throw new ToolError('INVALID_INPUT', `--task runs the call in the daemon: it does not go with ${noDaemon ? '--no-daemon' : '--elicitation'}.`, {
        hint: 'Leave out one of the two.',
      });
    }
    const runtime = this.runtime(configFlag);
    const [{ startDaemon }, { forgetDaemonAnswer }] = await Promise.all([import('../daemon/client/control.js'), import('../daemon/client/client.js')]);
    await startDaemon(runtime.configLocation.path, runtime.env);
    // This process may have found no daemon a moment ago (the fast path asked first): it runs now.
    forgetDaemonAnswer();
    const task = (await this.throughDaemon(runtime, { op: 'task-start', ...line }, false)) as { task_id: string; status: string } | undefined;
    if (!task)
      throw new ToolError('UNAVAILABLE', 'The daemon of this config did not take the task (it may be of another build, or MCPKIT_DAEMON=off).', {
        hint: 'Run mcpkit daemon status.',
      });
    // The id alone on stdout, so `T=$(mcpkit call ... --task)` holds just the id; the hint is for a person.
    if (!this.jsonEnabled()) {
      this.print(task.task_id);
      this.scope.io.err(`${this.color.dim(`Follow it with: mcpkit tasks wait ${task.task_id}`)}\n`);
    }
    return task;
  }

  /** Not one of mcpkit's own tools: look for it among the upstream servers' tools (in the daemon when one runs). */
  private async callUpstream(line: CallLine, configFlag: string | undefined, noDaemon: boolean, elicitation: ElicitationMode | undefined): Promise<unknown> {
    const runtime = this.runtime(configFlag);
    this.endUpstreamsOnInterrupt(runtime);
    // The daemon's warm connections declare no elicitation: a call that may be asked runs here, on its own.
    const result = elicitation ? undefined : ((await this.throughDaemon(runtime, { op: 'call-upstream', ...line }, noDaemon)) as UpstreamResult | undefined);
    const relay = elicitation ? terminalRelay(elicitation, (message) => this.scope.io.err(`mcpkit: ${message}\n`), stdinAsker) : undefined;
    let answered: UpstreamResult;
    // A terminal sees the call's progress as a line on stderr (run here; the daemon's calls do not relay it).
    const bar = result || this.scope.hosted ? undefined : terminalProgress();
    try {
      answered = result ?? (await callUpstreamTool(runtime, line, { downstream: relay, progress: bar?.update }));
    } finally {
      bar?.done();
      reader?.rl.close(); // a terminal's stdin would keep the process waiting
    }
    printUpstreamResult(line.name, answered, this.jsonEnabled());
    return answered;
  }
}

/** What the command line says of an upstream call: its name, arguments and view. */
type CallLine = { name: string; base: Record<string, unknown>; pairs: string[]; view?: string };

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
