import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../../core/version.js';
import * as z from 'zod';
import { notFound } from '../../core/suggest.js';
import { shellQuote } from '../../tool/command-line.js';
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

async function requireView(ctx: Parameters<typeof writtenSection>[0], name: string) {
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
    return { ...summary(input.name, view), entry: view };
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

/**
 * How a client starts mcpkit: `mcpkit` when it is on the PATH (npm link, a global install), else
 * this Node by absolute path running this install's bin/run.js, which works from a clone too.
 */
function launcher(env: NodeJS.ProcessEnv): { command: string; prefix: string[] } {
  const onPath = (env.PATH ?? '').split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, 'mcpkit'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return onPath ? { command: 'mcpkit', prefix: [] } : { command: process.execPath, prefix: [join(packageRoot(), 'bin/run.js')] };
}

/** The clients view install writes a snippet for. */
export const INSTALL_CLIENTS = ['claude', 'claude-code', 'cursor', 'vscode'] as const;

export const viewInstall = defineTool({
  name: 'view_install',
  group: 'view',
  command: {
    id: 'view install',
    args: ['name'],
    examples: [
      '<%= config.bin %> view install research --client claude',
      '<%= config.bin %> view install research --client claude-code',
      '<%= config.bin %> view install research --client vscode --json',
    ],
  },
  title: 'Client config for a view',
  description:
    'Print the JSON that registers "mcpkit serve --view NAME" in an MCP client (Claude Desktop, Claude Code, Cursor or VS Code), with the environment variables the config\'s ${VAR}s need: a client started from a desktop does not inherit the shell\'s. Nothing is written.',
  input: z.strictObject({
    name: viewName,
    client: z.enum(INSTALL_CLIENTS).default('claude').describe('Which client the snippet is for: claude (Desktop), claude-code, cursor or vscode.'),
  }),
  annotations: READ_ONLY,
  async run(input, ctx) {
    await requireView(ctx, input.name);
    const { command, prefix } = launcher(ctx.env);
    const args = [...prefix, 'serve', '--view', input.name, '--config', ctx.configLocation.path];
    const needed = [...((await ctx.config()).references?.all ?? [])];
    return { view: input.name, client: input.client, ...clientSnippet(input.client, `mcpkit-${input.name}`, command, args, needed), env_needed: needed };
  },
  // The JSON alone on stdout (| jq works); where to put it, and what to fill in, on stderr.
  render: (r, ui) => {
    ui.note(ui.color.dim(`merge into ${r.file}:`));
    if (r.fill_in.length)
      ui.note(ui.color.yellow(`then put the values of ${r.fill_in.join(', ')} in its "env" (this client does not read your shell's environment)`));
    if (r.command_line) ui.note(ui.color.dim(`or run: ${r.command_line}`));
    return JSON.stringify(r.snippet, null, 2);
  },
});

/**
 * One client's snippet. Each variable the config names goes in its "env": as a reference the
 * client expands where it does so (VS Code's ${env:NAME}, Claude Code's ${NAME} in .mcp.json), else
 * as a placeholder to fill in (`fill_in`). Pure.
 */
export function clientSnippet(
  client: (typeof INSTALL_CLIENTS)[number],
  key: string,
  command: string,
  args: readonly string[],
  variables: readonly string[],
): { file: string; snippet: Record<string, unknown>; fill_in: string[]; command_line?: string } {
  const env = (value: (name: string) => string) => (variables.length ? { env: Object.fromEntries(variables.map((v) => [v, value(v)])) } : {});
  const placeholder = (v: string) => `<the value of ${v}>`;
  switch (client) {
    case 'claude':
      return { file: 'claude_desktop_config.json', snippet: { mcpServers: { [key]: { command, args, ...env(placeholder) } } }, fill_in: [...variables] };
    case 'cursor':
      return {
        file: '.cursor/mcp.json (or ~/.cursor/mcp.json)',
        snippet: { mcpServers: { [key]: { command, args, ...env(placeholder) } } },
        fill_in: [...variables],
      };
    case 'vscode':
      return { file: '.vscode/mcp.json', snippet: { servers: { [key]: { type: 'stdio', command, args, ...env((v) => `\${env:${v}}`) } } }, fill_in: [] };
    case 'claude-code': {
      const quoted = [command, ...args].map(shellQuote);
      // '${NAME}' as written: .mcp.json keeps the reference (Claude Code expands it), never the secret.
      const envFlags = variables.map((v) => `-e ${shellQuote(`${v}=\${${v}}`)}`);
      return {
        file: '.mcp.json (project scope)',
        snippet: { mcpServers: { [key]: { type: 'stdio', command, args, ...env((v) => `\${${v}}`) } } },
        fill_in: [],
        command_line: ['claude mcp add --scope project', ...envFlags, key, '--', ...quoted].join(' '),
      };
    }
  }
}
