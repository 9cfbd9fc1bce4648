import { dirname } from 'node:path';
import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import type { ToolContext } from '../../tool/context.js';
import { CONFIG_WRITE, defineTool, READ_ONLY, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import { editConfigFile, writtenConfig } from '../shared/config-access.js';

/**
 * Hooks from the terminal. Not offered over MCP (`available`): a hook is code that serve loads
 * into its own process, so an agent that could name a module could run anything as serve.
 */
const edits = () => import('../../config/edits/composites-edit.js');
const viewInput = z.string().min(1).optional().describe("A view's hooks (tool_views.NAME.hooks); leave out for the global ones, around every call.");

type Hooks = { pre_call?: string; post_call?: string };

export const hooksShow = defineTool({
  name: 'hooks_show',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: { id: 'hooks show', aliases: ['hooks list'], examples: ['<%= config.bin %> hooks show', '<%= config.bin %> hooks show --json'] },
  title: 'Show the hooks',
  description: "Show the hook modules of the config: the global ones (hooks), run around every call, and each view's (tool_views.NAME.hooks), run after them.",
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const { raw } = await writtenConfig(ctx);
    const rows = [{ where: 'global', ...((raw.hooks as Hooks | undefined) ?? {}) }];
    for (const [view, entry] of Object.entries((raw.tool_views as Record<string, { hooks?: Hooks }> | undefined) ?? {})) {
      if (entry?.hooks) rows.push({ where: `view ${view}`, ...entry.hooks });
    }
    return {
      hooks: rows
        .filter((r) => r.pre_call !== undefined || r.post_call !== undefined)
        .map((r) => ({ where: r.where, pre_call: r.pre_call ?? null, post_call: r.post_call ?? null })),
    };
  },
  render: (r, ui) =>
    r.hooks.length === 0
      ? 'No hooks. Set one with: mcpkit hooks set --pre-call ./hooks.mjs'
      : ui.table(r.hooks.map((h) => ({ ...h, pre_call: h.pre_call ?? '', post_call: h.post_call ?? '' }))),
});

export const hooksSet = defineTool({
  name: 'hooks_set',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: {
    id: 'hooks set',
    examples: [
      '<%= config.bin %> hooks set --pre-call ./hooks.mjs --post-call ./hooks.mjs',
      '<%= config.bin %> hooks set --view research --pre-call ./redact.mjs',
    ],
  },
  title: 'Set hook modules',
  description:
    'Set the module whose pre_call(args, ctx) runs before each call, or whose post_call(result, args, ctx) runs after it; globally or for one view. A path is relative to the config file. The module is loaded before anything is written: a missing file, a module that does not load, or one without the function is refused. Hooks are edited from a terminal only.',
  input: z.strictObject({
    view: viewInput,
    pre_call: z.string().min(1).optional().describe('Module exporting pre_call(args, ctx).'),
    post_call: z.string().min(1).optional().describe('Module exporting post_call(result, args, ctx).'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: true },
  hostAccess: 'config',
  async run(input, ctx) {
    if (input.pre_call === undefined && input.post_call === undefined) {
      throw new ToolError('INVALID_INPUT', 'Give --pre-call, --post-call or both.', { hint: 'To take hooks away: mcpkit hooks clear.' });
    }
    await checkModules(ctx, input);
    const { setHooks } = await edits();
    const change = { ...(input.pre_call ? { pre_call: input.pre_call } : {}), ...(input.post_call ? { post_call: input.post_call } : {}) };
    const { value: before, path } = await editConfigFile(ctx, (doc) => setHooks(doc, input.view, change));
    return { where: input.view ? `view ${input.view}` : 'global', set: change, before, config: path };
  },
  render: (r, ui) =>
    Object.entries(r.set)
      .map(([hook, module]) => {
        const was = r.before[hook as keyof typeof r.before];
        return `${ui.color.green('✓')} ${r.where} ${hook}: ${module}${was && was !== module ? ui.color.dim(` (was ${was})`) : ''}`;
      })
      .join('\n'),
});

/** Loads each module as serve will: relative to the config file, with the named function exported. */
async function checkModules(ctx: ToolContext, hooks: Hooks): Promise<void> {
  const { HookChain } = await import('../../proxy/calls/hooks.js');
  await new HookChain([hooks], dirname(ctx.configLocation.path)).check();
}

export const hooksClear = defineTool({
  name: 'hooks_clear',
  group: 'config',
  ...TERMINAL_ONLY_TOOL,
  command: { id: 'hooks clear', examples: ['<%= config.bin %> hooks clear', '<%= config.bin %> hooks clear --view research --post-call'] },
  title: 'Clear hook modules',
  description: 'Take hook modules out of the config, globally or for one view: --pre-call, --post-call, or both when neither is given.',
  input: z.strictObject({
    view: viewInput,
    pre_call: z.boolean().default(false).describe('Clear pre_call only.'),
    post_call: z.boolean().default(false).describe('Clear post_call only.'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: true },
  hostAccess: 'config',
  async run(input, ctx) {
    const both = !input.pre_call && !input.post_call;
    const { setHooks } = await edits();
    const { value: before, path } = await editConfigFile(ctx, (doc) =>
      setHooks(doc, input.view, { ...(both || input.pre_call ? { pre_call: null } : {}), ...(both || input.post_call ? { post_call: null } : {}) }),
    );
    const cleared = (['pre_call', 'post_call'] as const).filter((h) => (both || input[h]) && before[h] !== undefined);
    return { where: input.view ? `view ${input.view}` : 'global', cleared, config: path };
  },
  render: (r, ui) => (r.cleared.length ? `${ui.color.green('✓')} ${r.where}: cleared ${r.cleared.join(', ')}` : `${r.where}: no such hook was set`),
});
