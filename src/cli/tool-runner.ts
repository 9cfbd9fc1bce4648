import { terminalSafe } from '../core/printable.js';
import type { ChalkInstance } from 'chalk';
import type { CallScope, Runtime } from '../app/runtime.js';
import type { Words } from '../core/errors.js';
import { inputJsonSchema } from '../core/schema.js';
import type { AnyTool } from '../tool/define.js';
import { parseToolInput } from '../tool/mcp-shape.js';
import type { CliIo } from './terminal/cli-io.js';
import { commandScope } from './terminal/command-scope.js';
import { kebab } from '../tool/command-line.js';
import { fieldSpecs } from './args/field-specs.js';
import { commandWords } from './terminal/report.js';
import { createRenderUi, renderGeneric } from './terminal/render.js';

/**
 * Running one tool for the terminal, shared by oclif's commands and the fast path so both print
 * exactly the same: validate, run, then the tool's rendering unless --json (the caller prints the
 * returned result as JSON, oclif through logJson).
 */
export async function runToolForCli(
  tool: AnyTool,
  raw: unknown,
  options: {
    runtime: Runtime;
    json: boolean;
    color: ChalkInstance;
    noDaemon?: boolean;
    /** Where the output goes (the daemon: its client's); this process's when absent. */
    io?: CliIo;
    /** The daemon: the client's directory and environment, and the end of its connection. */
    scope?: Pick<CallScope, 'cwd' | 'env' | 'signal'>;
  },
): Promise<unknown> {
  const io = options.io ?? commandScope().io;
  const input = parseToolInput(tool, raw);
  const ui = createRenderUi(options.color, (text) => io.err(`${text}\n`));
  const renderItem = tool.renderItem?.bind(tool) as ((item: unknown, ui: ReturnType<typeof createRenderUi>) => string) | undefined;
  // What is rendered came from outside (an upstream, a client, a registry, a file's name): its
  // escape sequences are escaped, so the only ones printed are the renderer's colours.
  const emit = !options.json && renderItem ? (item: unknown) => io.out(`${renderItem(terminalSafe(item), ui)}\n`) : undefined;
  // A tool that gains from a warm process runs in mcpkit daemon when one runs: the same handler on
  // the same input, its items and result rendered here as below (in the daemon itself, here).
  const remote = tool.warm
    ? await (
        await import('../daemon/client/use.js')
      ).throughDaemon(
        options.runtime,
        { op: 'tool', tool: tool.name, input: raw, stream: emit !== undefined },
        { noDaemon: options.noDaemon, ...(emit ? { item: emit } : {}) },
      )
    : undefined;
  const result = remote
    ? remote.result
    : await tool.run(
        input,
        options.runtime.context({
          createsConfig: tool.createsConfig === true,
          viewCalls: terminalViewCalls(options.runtime, options.scope),
          ...options.scope,
          ...(emit ? { emit } : {}),
        }),
      );
  if (!options.json) {
    const safe = terminalSafe(result);
    const text = tool.render ? await tool.render(safe, ui, input) : renderGeneric(safe, ui);
    if (text !== '') io.out(`${text}\n`);
  }
  if (tool.exitCode) io.exitCode(tool.exitCode(result));
  return result;
}

/**
 * A terminal's tool calls a view's tools through the call port, as `mcpkit call` does
 * (mcp/pipeline/terminal-calls.ts); mcpkit's own tools among them see the command's folder and
 * environment (`caller`: the daemon's client's).
 */
export function terminalViewCalls(runtime: Runtime, caller?: Pick<CallScope, 'cwd' | 'env'>): NonNullable<CallScope['viewCalls']> {
  return async (hub) => (await import('../mcp/pipeline/terminal-calls.js')).codeRunCalls(runtime, hub, caller);
}

/** Human output, where the running command prints (cli/terminal/command-scope.ts); not oclif's log, which goes through console.log. */
export function printLine(text: string): void {
  commandScope().io.out(`${text}\n`);
}

/**
 * The terminal's words for what handlers leave open: a field is the flag that sets it (or the
 * positional argument, in capitals), and bad arguments point at the command's --help.
 */
export function cliWords(commandId: string | undefined, tool?: AnyTool, bin = 'mcpkit', own: Readonly<Record<string, string>> = {}): Words {
  const specs = tool ? fieldSpecs(inputJsonSchema(tool.input), tool.command) : [];
  return commandWords(commandId, bin, (name) => {
    if (own[name]) return own[name];
    const spec = specs.find((s) => s.field === name);
    if (spec?.positional) return name.toUpperCase();
    return `--${spec?.flag ?? kebab(name)}`;
  });
}

// Where a failure is reported (./terminal/report.ts), for the modules that import it from here.
export { reportError, reportFailure } from './terminal/report.js';
