import { Flags } from '@oclif/core';
import { McpkitCommand } from '../cli/base-command.js';
import { ToolError } from '../core/errors.js';
import type { ClientsList } from '../cli/gateway/clients-list.js';
import type { NamedEntry, ProxyHub } from '../proxy/hub.js';

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
    'Without --who: every client of serve.clients (as "clients list") and serve.upstream_limits, tokens never shown. With --who (a client name, or a token) and --tool (a tool as the route publishes it): a dry run of the rules, saying which one decided, as "filter test" does for filters; exit code 0 when it may call, 1 when not. A token that is serve.token or a view\'s is an unnamed client: it has no rules.';
  static override examples = [
    '<%= config.bin %> clients',
    '<%= config.bin %> clients add alice --view research',
    '<%= config.bin %> clients --who alice --tool everything__echo',
    '<%= config.bin %> clients --who "$BOB_TOKEN" --tool get-sum --view research --json',
    `<%= config.bin %> clients --who release-bot --tool github__create_issue --args '{"repo":"acme/app"}'`,
  ];
  static override flags = {
    who: Flags.string({ description: "A client name of serve.clients, or a bearer token (a client's, serve.token, or a view's)." }),
    tool: Flags.string({ description: 'With --who: the tool, as the route publishes it (e.g. everything__echo on /mcp).' }),
    view: Flags.string({
      description:
        'With --tool: the route, a view of tool_views, or "default" for /mcp (default: the routes the client may use, the first that serves the tool).',
    }),
    args: Flags.string({
      description: "With --tool: the call's arguments as JSON; the dry run then tries the conditions on arguments too (the view's, the client's).",
    }),
  };

  async run(): Promise<ClientsList | DryRun> {
    const { flags } = await this.parse(Clients);
    const { decideFor, whoIs } = await import('../mcp/http/client-report.js');
    const runtime = this.runtime(flags.config);
    const config = await runtime.config();
    if (flags.tool !== undefined && flags.who === undefined)
      throw new ToolError('INVALID_INPUT', '--tool needs --who: the client (a name or a token) to try it for.');
    if (flags.who === undefined) {
      const { listClients, renderClients } = await import('../cli/gateway/clients-list.js');
      const result = await listClients(runtime);
      if (!this.jsonEnabled()) this.print(await renderClients(result, this.color));
      return result;
    }
    if (flags.tool === undefined) throw new ToolError('INVALID_INPUT', '--who needs --tool: the tool to try, as the route publishes it.');
    const { serveAsWritten } = await import('../cli/gateway/serve-as-written.js');
    // A client is found as written when this shell cannot resolve the serve section (its issued tokens by their digest).
    const { serve, problems } = await serveAsWritten(runtime);
    const who = whoIs({ serve, tool_views: config.tool_views }, flags.who);
    // A token is never echoed: a name is shown as given, a token by what it stands for.
    if (who.kind === 'unknown') {
      const names = Object.keys(serve.clients ?? {});
      throw new ToolError('NOT_FOUND', 'No client of this name, and no token of the config matches what --who gave.', {
        hint: problems
          ? `serve cannot use its serve section as the config stands: ${problems.join('; ')}`
          : names.length
            ? `Clients: ${names.join(', ')}. A token must be the exact value serve gets (after \${VAR} is read).`
            : 'The config has no serve.clients.',
      });
    }
    const { clientOpens } = await import('../mcp/access/route-access.js');
    const { routesToTry } = await import('../mcp/http/dry-run-routes.js');
    const mayUseRoute = (route: string) =>
      who.kind === 'serve-token' ||
      (who.kind === 'client' && clientOpens(serve.clients![who.name]!, route === 'default' ? { kind: 'mcp' } : { kind: 'view', view: route })) ||
      (who.kind === 'view-token' && who.views.includes(route));
    const tool = flags.tool;
    // The route given, else the client's own, in its order: the first that serves the tool decides.
    const tries = flags.view !== undefined ? [flags.view] : routesToTry(who, serve.clients, Object.keys(config.tool_views));
    const { route, entry } = await firstServing(runtime, tries, tool);
    const mayUse = mayUseRoute(route);
    const readOnly = entry.entry ? (await import('../proxy/calls/call-router.js')).readsOnly(entry.entry) : false;
    const expires = who.kind === 'client' ? serve.clients![who.name]!.token_expires : undefined;
    const decided = !mayUse
      ? { allowed: false, because: `it may not use the route ${route === 'default' ? '/mcp' : `/view/${route}/mcp`}` }
      : expires !== undefined && !(Date.parse(expires) > Date.now())
        ? { allowed: false, because: `its token expired at ${expires} (mcpkit clients rotate ${who.name} --expires 30d gives it a new one)` }
        : who.kind === 'client'
          ? decideFor(serve, who.name, { name: tool, readOnly })
          : { allowed: true, because: 'an unnamed client has no rules' };
    if (flags.args !== undefined && decided.allowed && entry.entry) {
      const { conditionVerdict, parseTrialArgs } = await import('../cli/gateway/condition-verdict.js');
      const client = who.kind === 'client' ? { name: who.name, ...serve.clients![who.name]! } : undefined;
      const args = parseTrialArgs(flags.args);
      Object.assign(
        decided,
        conditionVerdict({ view: route === 'default' ? undefined : route, viewConditions: entry.conditions, client, entry: entry.entry, args }),
      );
    }
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

type Found = { entry?: NamedEntry['entry']; conditions?: ProxyHub['view']['conditions'] };

/** The first of the routes that serves the tool, else the first route tried (with nothing found). */
async function firstServing(runtime: ReturnType<Clients['runtime']>, tries: readonly string[], tool: string): Promise<{ route: string; entry: Found }> {
  for (const tried of tries) {
    const found: Found = await runtime.withHub(tried === 'default' ? undefined : tried, async (hub) => ({
      entry: (await hub.catalog.lookup(tool)).entry,
      conditions: hub.view.conditions,
    }));
    if (found.entry) return { route: tried, entry: found };
  }
  return { route: tries[0]!, entry: {} };
}
