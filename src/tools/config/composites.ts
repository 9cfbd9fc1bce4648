import * as z from 'zod';
import { compositeSteps } from '../../config/schema/schema.js';
import { ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import type { ToolContext } from '../../tool/context.js';
import { CONFIG_WRITE, defineTool, READ_ONLY, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import { editConfigFile, writtenSection } from '../shared/config-access.js';
import { checkToolNames } from '../shared/tool-names.js';

/**
 * Composite tools from the terminal. Not offered over MCP (`available`): a composite changes what
 * every client of serve is offered, which is a person's decision, as hooks are (./hooks.ts).
 */
const edits = () => import('../../config/edits/composites-edit.js');
const compositeName = z.string().min(1).describe('Name of the composite tool (composite_tools.NAME), as clients see it.');

type Composite = { description?: string; parallel?: Record<string, { tool: string }>; chain?: { name?: string; tool: string }[] };

function rowOf(name: string, c: Composite) {
  const steps = c.parallel
    ? Object.entries(c.parallel).map(([step, s]) => `${step}=${s.tool}`)
    : (c.chain ?? []).map((s, i) => `${s.name ?? `step${i + 1}`}=${s.tool}`);
  return { name, runs: c.parallel ? 'parallel' : 'chain', steps, description: c.description ?? '' };
}

/** The composites as written, secrets masked, as every command that shows the config shows them. */
async function writtenComposites(ctx: ToolContext): Promise<Record<string, Composite>> {
  return (await writtenSection(ctx, 'composite_tools')).entries as Record<string, Composite>;
}

export const compositeList = defineTool({
  name: 'composite_list',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: { id: 'composite list', aliases: ['composite ls'], examples: ['<%= config.bin %> composite list', '<%= config.bin %> composite list --json'] },
  title: 'List composite tools',
  description: 'List the composite tools of the config (composite_tools): how their steps run and which tool each step calls.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    return { composites: Object.entries(await writtenComposites(ctx)).map(([name, c]) => rowOf(name, c)) };
  },
  render: (r, ui) =>
    r.composites.length === 0
      ? 'No composite tools. Add one with: mcpkit composite add NAME --step TOOL ...'
      : ui.table(r.composites.map((c) => ({ ...c, steps: c.steps.join(', ') }))),
});

export const compositeShow = defineTool({
  name: 'composite_show',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: { id: 'composite show', aliases: ['composite get'], args: ['name'], examples: ['<%= config.bin %> composite show lookup --json'] },
  title: 'Show a composite tool',
  description: 'Show one composite tool as the config has it: its inputs, steps and their arguments.',
  input: z.strictObject({ name: compositeName }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const all = await writtenComposites(ctx);
    const entry = all[input.name];
    if (!entry) throw notFound('composite tool', input.name, Object.keys(all), '"mcpkit composite list" shows them.');
    return { name: input.name, entry };
  },
});

export const compositeAdd = defineTool({
  name: 'composite_add',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: {
    id: 'composite add',
    args: ['name'],
    flagNames: { steps: 'step', inputs: 'input' },
    examples: [
      `<%= config.bin %> composite add lookup --description "Docs and code at once" --parallel --input q --step docs=search --args 'docs={"query":"{inputs.q}"}' --step code=github.search_code --args 'code={"q":"{inputs.q}"}'`,
      `<%= config.bin %> composite add sum-then-echo --input a:number --input b:number --step sum=everything.get-sum --args 'sum={"a":"{inputs.a}","b":"{inputs.b}"}' --step say=everything.echo --args 'say={"message":"the sum: {steps.sum.result}"}'`,
    ],
  },
  title: 'Add a composite tool',
  description:
    'Add a composite tool: steps that run in order (a chain; later steps may use {steps.NAME.result...}) or at once (--parallel), each calling server.tool (as the server publishes it) or an mcpkit tool, with arguments that may use {inputs.NAME}.\nEach server.tool is checked against what its server publishes when it can be reached; an unknown one is refused unless --force. Composites are edited from a terminal only: they are not offered over MCP.',
  input: z.strictObject({
    name: compositeName,
    steps: z.array(z.string().min(1)).min(1).describe('A step, [STEP=]TOOL, in order (repeatable); TOOL is server.tool or an mcpkit tool name.'),
    parallel: z.boolean().default(false).describe('Run the steps at once; a failing step gives { error } without failing the others.'),
    args: z.array(z.string().min(1)).default([]).describe('A step\'s arguments, STEP=JSON (repeatable), e.g. docs={"query":"{inputs.q}"}.'),
    inputs: z
      .array(z.string().min(1))
      .default([])
      .describe('An argument of the composite, NAME or NAME:TYPE (repeatable; required; type string unless given).'),
    description: z.string().optional().describe('What the composite does (shown to clients).'),
    force: z.boolean().default(false).describe('Replace a composite of the same name, and keep step tools that cannot be checked or are not found.'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { compositeFromWords, setComposite } = await edits();
    const entry = compositeFromWords({ steps: input.steps, parallel: input.parallel, args: input.args, inputs: input.inputs, description: input.description });
    const unchecked = await checkSteps(ctx, input.name, entry, input.force);
    const { value, path } = await editConfigFile(ctx, (doc) => setComposite(doc, input.name, entry, { force: input.force }));
    return { composite: input.name, replaced: value.replaced, entry, config: path, ...(unchecked.length ? { unchecked } : {}) };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} ${r.replaced ? 'Replaced' : 'Added'} composite tool ${r.composite} (${rowOf(r.composite, r.entry).steps.join(', ')})`,
      ...(r.unchecked ?? []).map((u) => ui.color.yellow(`  Not checked: ${u}.`)),
    ].join('\n'),
});

/**
 * The steps' tools: an mcpkit tool must exist, a server must be configured (as `config validate`
 * checks), and a server's tool must be one it publishes, when the server answers; what could not
 * be checked is returned to be said.
 */
async function checkSteps(
  ctx: ToolContext,
  name: string,
  entry: { parallel?: Record<string, { tool: string }>; chain?: { tool: string }[] },
  force: boolean,
): Promise<string[]> {
  const config = await ctx.config();
  const known = await ctx.mcpkitNames?.();
  const { crossCheckProblems } = await import('../../config/check/cross-checks.js');
  const problems = known ? crossCheckProblems({ mcp_servers: config.mcp_servers, serve: {}, tool_views: {}, composite_tools: { [name]: entry } }, known) : [];
  if (problems.length) {
    const { closestNames } = await import('../../core/suggest.js');
    const similar = [
      ...new Set(
        compositeSteps(entry)
          .filter((s) => !s.tool.includes('.'))
          .flatMap((s) => closestNames(s.tool, known?.tools ?? [])),
      ),
    ];
    throw new ToolError('NOT_FOUND', problems.map((p) => p.message).join('; ') + '.', {
      details: { problems, similar },
      hint: `${similar.length ? `Did you mean ${similar.join(', ')}? ` : ''}"mcpkit server list" shows the servers, "mcpkit tools --local" mcpkit's tools.`,
    });
  }
  if (force) return [];
  const byServer = new Map<string, string[]>();
  for (const step of compositeSteps(entry)) {
    const dot = step.tool.indexOf('.');
    if (dot > 0) byServer.set(step.tool.slice(0, dot), [...(byServer.get(step.tool.slice(0, dot)) ?? []), step.tool.slice(dot + 1)]);
  }
  // Each server at once: a check that waits for one that is slow to start should not wait for all.
  const checks = await Promise.all([...byServer].map(([server, tools]) => checkToolNames(ctx, server, tools, { published: true })));
  return checks.flatMap((c) => (!c.checked && c.reason ? [c.reason] : []));
}

export const compositeRemove = defineTool({
  name: 'composite_remove',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: { id: 'composite remove', aliases: ['composite rm'], args: ['name'], examples: ['<%= config.bin %> composite remove lookup'] },
  title: 'Remove a composite tool',
  description: 'Remove a composite tool from the config; refused while a view names it in its tools.',
  input: z.strictObject({ name: compositeName }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { removeComposite } = await edits();
    const { path } = await editConfigFile(ctx, (doc) => removeComposite(doc, input.name));
    return { composite: input.name, removed: true, config: path };
  },
  render: (r, ui) => `${ui.color.green('✓')} Removed composite tool ${r.composite}`,
});
