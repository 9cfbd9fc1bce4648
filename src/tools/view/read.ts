import * as z from 'zod';
import { notFound } from '../../core/suggest.js';
import { defineTool, READ_ONLY, summaryOf } from '../../tool/define.js';
import { writtenSection } from '../shared/config-access.js';
import { escapeInvisible } from '../../proxy/pins/pins.js';

const viewName = z.string().min(1).describe('Name of the view.');

function summary(name: string, v: Record<string, unknown>) {
  const servers = Array.isArray(v.servers) ? v.servers : Object.keys((v.servers as object) ?? {});
  return {
    name,
    description: (v.description as string | undefined) ?? '',
    exposure: (v.exposure as string | undefined) ?? 'auto',
    servers: servers as string[],
    groups: (v.groups as string[] | undefined) ?? [],
  };
}

/** A view's conditions on arguments, one per tool glob: the expression, and the message a refused caller gets. */
function conditionsOf(v: Record<string, unknown>): { tools: string; when: string; message?: string }[] {
  const written = (v.conditions ?? {}) as Record<string, string | { when: string; message?: string }>;
  return Object.entries(written).map(([tools, c]) => (typeof c === 'string' ? { tools, when: c } : { tools, ...c }));
}

export async function requireView(ctx: Parameters<typeof writtenSection>[0], name: string) {
  const { entries: views } = await writtenSection(ctx, 'tool_views');
  const view = views[name];
  if (!view) throw notFound('view', name, Object.keys(views), '"mcpkit view list" shows the views.');
  return view;
}

export const viewList = defineTool({
  name: 'view_list',
  group: 'view',
  command: { id: 'view list', examples: ['<%= config.bin %> view list'] },
  title: 'List views',
  description: 'List the views in the config: description, exposure, servers and mcpkit tool groups.',
  input: z.strictObject({}),
  annotations: READ_ONLY,
  async run(_input, ctx) {
    const { entries: views } = await writtenSection(ctx, 'tool_views');
    return { views: Object.entries(views).map(([name, v]) => summary(name, v)) };
  },
  render: (r, ui) =>
    r.views.length === 0
      ? 'No views configured. Create one with: mcpkit view create NAME'
      : ui.table(r.views.map((v) => ({ ...v, servers: v.servers.join(', '), groups: v.groups.join(', ') }))),
});

export const viewShow = defineTool({
  name: 'view_show',
  group: 'view',
  command: { id: 'view show', args: ['name'], examples: ['<%= config.bin %> view show research --json'] },
  title: 'Show a view',
  description: 'Show one view as written in the config.',
  input: z.strictObject({ name: viewName }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    const view = await requireView(ctx, input.name);
    return { ...summary(input.name, view), conditions: conditionsOf(view), entry: view };
  },
});

export const viewTools = defineTool({
  name: 'view_tools',
  warm: true,
  group: 'view',
  command: { id: 'view tools', args: ['name'], examples: ['<%= config.bin %> view tools research', '<%= config.bin %> view tools --json'] },
  title: 'Preview the catalog of a view',
  description:
    'Show exactly the tools a client sees from "mcpkit serve --view NAME" (starting its upstream servers), what tools/list costs in tokens (bytes/4) against the view\'s budget, and which tools are listed directly.',
  input: z.strictObject({ name: viewName.optional().describe('Name of the view; leave out for the default one (serve without --view).') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(input, ctx) {
    return ctx.views.with(
      input.name,
      async (hub) => {
        const tools = await hub.list();
        const catalog = await hub.catalogTools();
        const plan = await hub.exposurePlan();
        return {
          view: input.name ?? null,
          exposure: hub.view.exposure,
          /** What tools/list does now: every tool, or the meta-tools plus the direct ones. */
          listing: plan.mode,
          // What a model would read, shown so a person sees it too (tool pinning).
          tools: tools.map((t) => ({ name: t.name, description: escapeInvisible(summaryOf(t)) })),
          withheld: hub.withheldTools(),
          hidden: hub.hiddenTools(),
          direct: plan.direct,
          unknown_pins: plan.unknown_pins,
          catalog_size: catalog.length,
          token_budget: plan.budget,
          tokens_estimate: plan.list_tokens,
          catalog_tokens: plan.catalog_tokens,
          list_bytes: Buffer.byteLength(JSON.stringify({ tools })),
          unavailable: hub
            .status()
            .filter((s) => s.state !== 'ready')
            .map((s) => ({ server: s.name, state: s.state, error: s.error })),
        };
      },
      { quiet: ctx.surface === 'cli' },
    );
  },
  render: (r, ui) =>
    [
      ui.table(r.tools),
      '',
      r.listing === 'search'
        ? `exposure ${r.exposure}: ${r.tools.length} tool(s) listed (${r.direct.length} direct, the rest of the ${r.catalog_size} through search); tools/list ≈ ${r.tokens_estimate} tokens, the whole catalog ${r.catalog_tokens}; budget ${r.token_budget}`
        : `exposure ${r.exposure}: all ${r.catalog_size} tool(s) listed; tools/list ≈ ${r.tokens_estimate} tokens${r.exposure === 'auto' ? ` (budget ${r.token_budget})` : ''}`,
      ...r.withheld.map((w) =>
        ui.color.yellow(
          `! ${w.name} is withheld: ${w.why === 'new' ? 'a new tool' : 'changed since approval'} of server ${w.server} (mcpkit server diff ${w.server}, then mcpkit server approve ${w.server} --digest DIGEST)`,
        ),
      ),
      ...r.hidden.map((h) => ui.color.dim(`- ${h.tool} of server ${h.server} is hidden: ${h.why}`)),
      ...r.unknown_pins.map((u) =>
        ui.color.yellow(`! pin "${u.pin}" names no tool of the view${u.similar.length ? ` (did you mean ${u.similar.join(', ')}?)` : ''}`),
      ),
      ...r.unavailable.map((u) =>
        ui.color.yellow(`! server ${u.server} ${u.state === 'needs_login' ? 'needs a login' : `is ${u.state}`}${u.error ? `: ${u.error}` : ''}`),
      ),
    ].join('\n'),
});
