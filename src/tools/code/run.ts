import * as z from 'zod';
import { declarationsOf } from '../../code/declarations.js';
import { runCode } from '../../code/sandbox.js';
import { scriptAnswerOf } from '../../code/tool-value.js';
import { ToolError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';
import { defineTool, TERMINAL_ONLY_TOOL } from '../../tool/define.js';

const viewName = z.string().min(1).describe('The view whose tools the script calls; leave out for the default one (serve without --view).');

/**
 * `mcpkit code run`: a code-mode script run from a terminal, the way a code view's run_code runs
 * one (the same sandbox and limits, code/sandbox.ts): each tool call goes through the call port,
 * as `mcpkit call` does (OpenedView.call: the terminal's chain, its audit line naming the run as
 * its parent). In the daemon where it runs (its connections are warm).
 */
export const codeRun = defineTool({
  name: 'code_run',
  group: 'code',
  warm: true,
  title: 'Run a script against a view',
  description:
    "Run JavaScript or TypeScript against a view's tools, in code mode's sandbox: tools.SERVER.TOOL(args) calls a tool (its structured content, else its text; a failure throws an Error with code and details), await sleep(ms) waits within the run's time, console.log is printed on stderr, and what the script returns is the result. The view's code limits apply (its code settings, else serve.code); --timeout-ms sets the wall time of this run.",
  // Its command is written by hand (src/commands/code/run.ts): the script is read where the person is.
  command: {
    id: 'code run',
    examples: [
      '<%= config.bin %> code run sum.js',
      `echo "return await tools.everything.echo({ message: 'hi' })" | <%= config.bin %> code run -`,
      '<%= config.bin %> code run report.ts --view research --timeout-ms 60000 --json',
    ],
  },
  input: z.strictObject({
    code: z.string().min(1).describe('The script: the body of an async function; what it returns is the result.'),
    view: viewName.optional(),
    timeout_ms: z.int().min(100).max(3_600_000).optional().describe("Wall time of this run (default: the view's code.timeout_ms, else 30000)."),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    return ctx.views.with(input.view, async (opened) => {
      const { tree, publishedFor, declared } = await opened.codeTools();
      const { limits, settings } = opened.codeLimits();
      const outcome = await runCode(input.code, {
        tools: tree,
        publishedFor,
        limits: { ...limits, ...(input.timeout_ms !== undefined ? { timeoutMs: input.timeout_ms } : {}) },
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        settings: {
          timeoutMs: input.timeout_ms !== undefined ? '--timeout-ms' : `${settings}.timeout_ms`,
          memoryMb: `${settings}.memory_mb`,
          maxCalls: `${settings}.max_calls`,
          maxParallel: `${settings}.max_parallel`,
          maxOutputBytes: `${settings}.max_output_bytes`,
        },
        call: async (name, args, signal) => {
          const outcome = await opened.call(name, args, { signal });
          if (!outcome.found) {
            const similar = closestNames(
              name,
              declared.map((t) => t.published),
            );
            throw new ToolError('NOT_FOUND', `No tool named "${name}" in ${input.view ? `view "${input.view}"` : 'mcpkit'}.`, {
              details: { tool: name, similar },
              hint: 'mcpkit code types prints the tools a script can call.',
            });
          }
          return scriptAnswerOf(name, outcome.result ?? {});
        },
      });
      return { view: input.view ?? null, result: outcome.result, logs: outcome.logs, calls: outcome.calls };
    });
  },
  render: (r, ui) => {
    for (const line of r.logs) ui.note(line);
    return typeof r.result === 'string' ? r.result : JSON.stringify(r.result, null, 2);
  },
});

/** `mcpkit code types`: the declarations a script of the view calls its tools by, for an editor. */
export const codeTypes = defineTool({
  name: 'code_types',
  group: 'code',
  warm: true,
  title: "A view's tools as TypeScript declarations",
  description:
    "Print the TypeScript declarations of a view's tools as a code-mode script calls them (declare const tools: ...), for an editor: each tool's parameters, their types and descriptions, and its result type where it has one.",
  command: { id: 'code types', examples: ['<%= config.bin %> code types > tools.d.ts', '<%= config.bin %> code types --view research'] },
  input: z.strictObject({ view: viewName.optional() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    return ctx.views.with(input.view, async (opened) => {
      const { declared, declarationLimits } = await opened.codeTools();
      return { view: input.view ?? null, tools: declared.length, declarations: declarationsOf(declared, declarationLimits) };
    });
  },
  render: (r) => r.declarations.trimEnd(),
});
