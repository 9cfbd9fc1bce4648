import * as z from 'zod';
import { EXPOSURES, TOKEN_BUDGET_RANGE } from '../../config/schema/defaults.js';
import { field, ToolError } from '../../core/errors.js';
import { CONFIG_WRITE, defineTool } from '../../tool/define.js';
import { editConfigFile } from '../shared/config-access.js';
import { checkToolNames, checkViewPins } from '../shared/tool-names.js';

const viewName = z.string().min(1).describe('Name of the view (tool_views.NAME).');
const serverName = z.string().min(1).describe('Name of a server in mcp_servers.');
const edits = () => import('../../config/edits/views-edit.js');
const exposureInput = z.enum(EXPOSURES);
const EXPOSURE_WORDS =
  'auto (default): every tool listed while tools/list fits the token budget, else search meta-tools plus the pinned and most used tools; direct: every tool; search: meta-tools and pins only; code: search and describe answering with TypeScript declarations, and run_code, which runs a script against the tools.';
const tokenBudgetInput = z
  .int()
  .min(TOKEN_BUDGET_RANGE.min)
  .max(TOKEN_BUDGET_RANGE.max)
  .describe('Most tokens (bytes/4) tools/list may cost under auto (default 4000).');

export const viewCreate = defineTool({
  name: 'view_create',
  group: 'view',
  command: {
    id: 'view create',
    args: ['name'],
    flagNames: { groups: 'group' },
    examples: [
      '<%= config.bin %> view create research --description "Read-only research tools" --read-only --exposure search',
      '<%= config.bin %> view create lean --group config',
    ],
  },
  title: 'Create a view',
  description: 'Create a named view: a filtered catalog served by "mcpkit serve --view NAME". Add servers to it with "view add-server".',
  input: z.strictObject({
    name: viewName,
    description: z.string().optional().describe('What the view is for (shown to clients).'),
    exposure: exposureInput.optional().describe(EXPOSURE_WORDS),
    token_budget: tokenBudgetInput.optional(),
    groups: z.array(z.string()).optional().describe('mcpkit tool group to include (repeatable), e.g. retrieve.'),
    read_only: z
      .boolean()
      .default(false)
      .describe("Serve only tools that declare readOnlyHint: true, mcpkit's own and the servers' (tool_views.NAME.read_only)."),
    force: z.boolean().default(false).describe('Replace a view of the same name.'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { createView } = await edits();
    const spec = Object.fromEntries(
      Object.entries({
        description: input.description,
        exposure: input.exposure,
        token_budget: input.token_budget,
        groups: input.groups,
        read_only: input.read_only ? true : undefined,
      }).filter(([, v]) => v !== undefined),
    );
    const { value, path } = await editConfigFile(ctx, (doc) => createView(doc, input.name, spec, { force: input.force }));
    return { view: input.name, replaced: value.replaced, config: path };
  },
  render: (r, ui) => `${ui.color.green('✓')} ${r.replaced ? 'Replaced' : 'Created'} view ${r.view}`,
});

export const viewDelete = defineTool({
  name: 'view_delete',
  group: 'view',
  command: { id: 'view delete', args: ['name'], examples: ['<%= config.bin %> view delete research'] },
  title: 'Delete a view',
  description: 'Delete a view from the config (its servers stay).',
  input: z.strictObject({ name: viewName }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { deleteView } = await edits();
    const { path } = await editConfigFile(ctx, (doc) => deleteView(doc, input.name));
    return { view: input.name, deleted: true, config: path };
  },
  render: (r, ui) => `${ui.color.green('✓')} Deleted view ${r.view}`,
});

/** What a client of the view sees change when the edit moves its names (views-edit prefixChange). */
function namesNote(change: 'now_prefixed' | 'now_unprefixed'): string {
  return change === 'now_prefixed'
    ? "The view now lists several servers: its clients see each server's tools as SERVER__TOOL."
    : "The view now lists one server: its clients see that server's tools under their own names, without SERVER__.";
}

export const viewAddServer = defineTool({
  name: 'view_add_server',
  group: 'view',
  command: {
    id: 'view add-server',
    args: ['view', 'server'],
    examples: [
      '<%= config.bin %> view add-server research github',
      '<%= config.bin %> view add-server research github --tools search_code --tools search_issues',
    ],
  },
  title: 'Add a server to a view',
  description:
    "Add a server to a view: all its tools (those that pass the server's own rules), or only --tools.\nThe --tools names are checked against what the server publishes when it can be reached; an unknown name is refused unless --force.",
  input: z.strictObject({
    view: viewName,
    server: serverName,
    tools: z.array(z.string().min(1)).optional().describe('Only these tools of the server (as the server publishes them).'),
    force: z.boolean().default(false).describe('Accept tool names the server does not publish (or that cannot be checked now).'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    const checked = input.tools && !input.force ? await checkToolNames(ctx, input.server, input.tools, { published: true }) : { checked: false };
    const { addViewServer, listedServerCount, prefixChange } = await edits();
    let names: ReturnType<typeof prefixChange>;
    const { path } = await editConfigFile(ctx, (doc) => {
      const before = listedServerCount(doc, input.view);
      addViewServer(doc, input.view, input.server, input.tools);
      names = prefixChange(before, listedServerCount(doc, input.view));
    });
    return { view: input.view, server: input.server, tools: input.tools ?? 'all', config: path, ...checked, ...(names ? { names } : {}) };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} View ${r.view} serves ${r.server} (${r.tools === 'all' ? 'all tools' : (r.tools as string[]).join(', ')})`,
      ...('reason' in r && r.reason ? [ui.color.yellow(`  Names not checked: ${r.reason}.`)] : []),
      ...('names' in r && r.names ? [ui.color.yellow(`  ${namesNote(r.names)}`)] : []),
    ].join('\n'),
});

export const viewRemoveServer = defineTool({
  name: 'view_remove_server',
  group: 'view',
  command: { id: 'view remove-server', args: ['view', 'server'], examples: ['<%= config.bin %> view remove-server research github'] },
  title: 'Remove a server from a view',
  description: 'Remove a server from a view (the server stays in the config).',
  input: z.strictObject({ view: viewName, server: serverName }),
  annotations: { ...CONFIG_WRITE, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { removeViewServer, listedServerCount, prefixChange } = await edits();
    let names: ReturnType<typeof prefixChange>;
    const { path } = await editConfigFile(ctx, (doc) => {
      const before = listedServerCount(doc, input.view);
      removeViewServer(doc, input.view, input.server);
      names = prefixChange(before, listedServerCount(doc, input.view));
    });
    return { view: input.view, server: input.server, removed: true, config: path, ...(names ? { names } : {}) };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} View ${r.view} no longer serves ${r.server}`,
      ...('names' in r && r.names ? [ui.color.yellow(`  ${namesNote(r.names)}`)] : []),
    ].join('\n'),
});

export const viewSetTools = defineTool({
  name: 'view_set_tools',
  group: 'view',
  command: {
    id: 'view set-tools',
    args: ['view', 'server', 'tools'],
    examples: ['<%= config.bin %> view set-tools research github search_code search_issues', '<%= config.bin %> view set-tools research github --all'],
  },
  title: 'Set the tools of a server in a view',
  description: "Choose which tools of one server a view serves, or --all for every tool that passes the server's own rules.",
  input: z.strictObject({
    view: viewName,
    server: serverName,
    tools: z.array(z.string().min(1)).optional().describe('Tool names, as the server publishes them.'),
    all: z.boolean().default(false).describe('Serve every tool of the server.'),
    force: z.boolean().default(false).describe('Accept tool names the server does not publish (or that cannot be checked now).'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    const tools = input.tools ?? [];
    if (input.all === tools.length > 0) {
      throw new ToolError('INVALID_INPUT', input.all ? `Give tool names or ${field('all')}, not both.` : `Give the tool names to serve, or ${field('all')}.`);
    }
    const checked = !input.all && !input.force ? await checkToolNames(ctx, input.server, tools, { published: true }) : { checked: false };
    const { setViewTools } = await edits();
    const { path } = await editConfigFile(ctx, (doc) => setViewTools(doc, input.view, input.server, input.all ? null : tools));
    return { view: input.view, server: input.server, tools: input.all ? 'all' : tools, config: path, ...checked };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} View ${r.view} serves ${r.tools === 'all' ? 'all tools' : (r.tools as string[]).join(', ')} of ${r.server}`,
      ...('reason' in r && r.reason ? [ui.color.yellow(`  Names not checked: ${r.reason}.`)] : []),
    ].join('\n'),
});

export const viewSetExposure = defineTool({
  name: 'view_set_exposure',
  group: 'view',
  command: {
    id: 'view set-exposure',
    args: ['view', 'exposure'],
    examples: [
      '<%= config.bin %> view set-exposure research search',
      '<%= config.bin %> view set-exposure research auto --token-budget 2000 --pin search --pin open_file',
    ],
  },
  title: 'Set how a view exposes its tools',
  description: `How a view lists its tools. ${EXPOSURE_WORDS} The meta-tools are {view}_search_tools, {view}_describe_tool and {view}_call_tool.`,
  input: z.strictObject({
    view: viewName,
    exposure: exposureInput.describe('auto, direct or search.'),
    token_budget: tokenBudgetInput.optional(),
    pin: z.array(z.string().min(1)).optional().describe('A tool always listed directly, by the name the view publishes (repeatable; replaces the list).'),
    force: z.boolean().default(false).describe('Keep pins that name no tool the view publishes (or that cannot be checked now).'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    const checked = input.pin?.length && !input.force ? await checkViewPins(ctx, input.view, input.pin) : { checked: false };
    const { setViewField } = await edits();
    let replacedPins: string[] | undefined;
    const { value: changed, path } = await editConfigFile(ctx, (doc) => {
      // --pin replaces the list: what it replaced is said, so that a pin is not dropped unnoticed.
      const before = (doc.getIn(['tool_views', input.view, 'pin'], true) as { toJSON?: () => unknown } | undefined)?.toJSON?.();
      if (input.pin !== undefined && Array.isArray(before) && before.length) {
        const dropped = (before as string[]).filter((p) => !input.pin!.includes(p));
        if (dropped.length) replacedPins = before as string[];
      }
      return [
        setViewField(doc, input.view, 'exposure', input.exposure),
        input.token_budget !== undefined && setViewField(doc, input.view, 'token_budget', input.token_budget),
        input.pin !== undefined && setViewField(doc, input.view, 'pin', input.pin.length ? input.pin : undefined),
      ].some(Boolean);
    });
    return {
      view: input.view,
      exposure: input.exposure,
      ...(input.token_budget !== undefined ? { token_budget: input.token_budget } : {}),
      ...(input.pin ? { pin: input.pin } : {}),
      ...(replacedPins ? { replaced_pins: replacedPins } : {}),
      changed,
      config: path,
      ...checked,
    };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} View ${r.view} exposure: ${r.exposure}${r.pin ? `, pinned: ${r.pin.join(', ') || '(none)'}` : ''}`,
      ...(r.replaced_pins ? [ui.color.yellow(`  --pin replaced the pins ${r.replaced_pins.join(', ')} (give every pin to keep, or none to clear them).`)] : []),
      ...('reason' in r && r.reason ? [ui.color.yellow(`  Pins not checked: ${r.reason}.`)] : []),
    ].join('\n'),
});
