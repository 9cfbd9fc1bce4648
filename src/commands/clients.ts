import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { ToolError } from '../core/errors.js';
import type { ClientRow } from '../mcp/client-report.js';

interface ClientsResult {
  clients: ClientRow[];
  upstream_limits: Record<string, { max_concurrent: number | null; rate: string | null; queue_ms: number }>;
}

interface DryRun {
  who: string;
  tool: string;
  route: string;
  allowed: boolean;
  because: string;
  /** Whether the tool is in the route's catalog now (the servers were asked). */
  in_catalog: boolean;
}

export default class Clients extends McpkitCommand {
  static override summary = 'The named clients of "serve --http" (serve.clients): their routes, tool rules and limits; or whether one may call a tool.';
  static override description =
    'Without --who: every client of serve.clients and serve.upstream_limits, tokens never shown. With --who (a client name, or a token) and --tool (a tool as the route publishes it): a dry run of the rules, saying which one decided, as "filter test" does for filters; exit code 0 when it may call, 1 when not. A token that is serve.token or a view\'s is an unnamed client: it has no rules.';
  static override examples = [
    '<%= config.bin %> clients',
    '<%= config.bin %> clients --who alice --tool everything__echo',
    '<%= config.bin %> clients --who "$BOB_TOKEN" --tool get-sum --view research --json',
  ];
  static override flags = {
    who: Flags.string({ description: "A client name of serve.clients, or a bearer token (a client's, serve.token, or a view's)." }),
    tool: Flags.string({ description: 'With --who: the tool, as the route publishes it (e.g. everything__echo on /mcp).' }),
    view: Flags.string({ description: 'With --tool: the route, a view of tool_views (default: /mcp, the default view).' }),
  };

  async run(): Promise<ClientsResult | DryRun> {
    const { flags } = await this.parse(Clients);
    const { clientRows, decideFor, whoIs } = await import('../mcp/client-report.js');
    const runtime = this.runtime(flags.config);
    const config = await runtime.config();
    if (flags.tool !== undefined && flags.who === undefined)
      throw new ToolError('INVALID_INPUT', '--tool needs --who: the client (a name or a token) to try it for.');
    if (flags.who === undefined) {
      const result: ClientsResult = {
        clients: clientRows(config.serve),
        upstream_limits: Object.fromEntries(
          Object.entries(config.serve.upstream_limits ?? {}).map(([server, l]) => [
            server,
            { max_concurrent: l.max_concurrent ?? null, rate: l.rate ?? null, queue_ms: l.queue_ms ?? 0 },
          ]),
        ),
      };
      if (!this.jsonEnabled()) this.print(await renderList(result, this.color));
      return result;
    }
    if (flags.tool === undefined) throw new ToolError('INVALID_INPUT', '--who needs --tool: the tool to try, as the route publishes it.');
    const who = whoIs(config, flags.who);
    // A token is never echoed: a name is shown as given, a token by what it stands for.
    if (who.kind === 'unknown') {
      const names = Object.keys(config.serve.clients ?? {});
      throw new ToolError('NOT_FOUND', 'No client of this name, and no token of the config matches what --who gave.', {
        hint: names.length
          ? `Clients: ${names.join(', ')}. A token must be the exact value serve gets (after \${VAR} is read).`
          : 'The config has no serve.clients.',
      });
    }
    const route = flags.view ?? 'default';
    const { clientOpens } = await import('../mcp/route-access.js');
    const mayUse =
      who.kind === 'serve-token' ||
      (who.kind === 'client' && clientOpens(config.serve.clients![who.name]!, route === 'default' ? { kind: 'mcp' } : { kind: 'view', view: route })) ||
      (who.kind === 'view-token' && who.views.includes(route));
    const tool = flags.tool;
    const entry = await runtime.withHub(flags.view, async (hub) => ({ entry: await hub.entry(tool), names: await hub.names() }));
    const readOnly = entry.entry ? (await import('../proxy/calls/call-router.js')).readsOnly(entry.entry) : false;
    const decided = !mayUse
      ? { allowed: false, because: `it may not use the route ${route === 'default' ? '/mcp' : `/view/${route}/mcp`}` }
      : who.kind === 'client'
        ? decideFor(config.serve, who.name, { name: tool, readOnly })
        : { allowed: true, because: 'an unnamed client has no rules' };
    const result: DryRun = {
      who: who.name,
      tool,
      route,
      allowed: decided.allowed && entry.entry !== undefined,
      because: decided.because,
      in_catalog: entry.entry !== undefined,
    };
    if (!entry.entry) result.because = `${decided.because}; but the route serves no tool of this name`;
    if (!this.jsonEnabled()) {
      const verdict = result.allowed ? this.color.green('may call') : this.color.red('may not call');
      this.print(`${result.who} ${verdict} ${tool} on ${route === 'default' ? '/mcp' : `/view/${route}/mcp`}: ${result.because}.`);
    }
    // A script can test the answer: 0 may call, 1 may not (as grep's exit code says whether it found).
    if (!result.allowed) this.scope.io.exitCode(1);
    return result;
  }
}

async function renderList(result: ClientsResult, color: import('chalk').ChalkInstance): Promise<string> {
  const { createRenderUi } = await import('../cli/render.js');
  const ui = createRenderUi(color);
  if (!result.clients.length && !Object.keys(result.upstream_limits).length)
    return 'No serve.clients: every token of the config is an unnamed client with no rules (see "Teams" in the README).';
  const clients = result.clients.map((c) => ({
    client: c.name,
    by: c.recognised_by,
    routes: c.routes === 'every route' ? 'every route' : c.routes.join(', '),
    tools: c.tools.length ? c.tools.join('  ') : 'all',
    read_only: c.read_only ? 'yes' : '',
    rate: c.rate ?? '',
    max_concurrent: c.max_concurrent ?? '',
  }));
  const limits = Object.entries(result.upstream_limits).map(([server, l]) => ({
    server,
    max_concurrent: l.max_concurrent ?? '',
    rate: l.rate ?? '',
    queue_ms: l.queue_ms,
  }));
  return [...(clients.length ? [ui.table(clients)] : []), ...(limits.length ? ['', 'upstream_limits:', ui.table(limits)] : [])].join('\n');
}
