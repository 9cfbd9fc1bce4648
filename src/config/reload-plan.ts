import { stableJson } from '../core/stable-json.js';
import type { McpkitConfig, ServerConfig } from './schema/schema.js';

/**
 * What a config reload changes for a running `serve`, from the config it serves and the one just
 * read. Pure: the runtime carries the plan out (app/live-config.ts).
 *
 * A server is restarted only when what its connection is made of changed; its shaping (tools,
 * filter, description) is the views' business, so a new filter does not end the calls in flight
 * or the subscriptions of a server that is otherwise the same.
 */
export interface ReloadPlan {
  servers: {
    added: string[];
    removed: string[];
    restarted: string[];
  };
  views: {
    added: string[];
    removed: string[];
    changed: string[];
  };
  /** Settings a running process cannot take: they apply at the next start. */
  needsRestart: string[];
  /** Sections whose change applies to the next call with nothing to do now (named in the log line). */
  settings: string[];
}

/** The fields of a server entry its connection is made of (a change restarts it). */
export const CONNECTION_KEYS = [
  'command',
  'args',
  'env',
  'cwd',
  'inherit_env',
  'sandbox',
  'limits',
  'url',
  'headers',
  'auth',
  'transport',
  'protocol',
  'timeout_ms',
  'roots',
  'per_client',
  // The schedule is made with the connection: an edit takes effect on the one made anew.
  'reconnect',
] as const;

/** Settings read once, when serve starts listening. */
const RESTART_KEYS = [
  'host',
  'port',
  'max_body_bytes',
  'session_idle_ms',
  'max_sessions',
  'send_timeout_ms',
  'max_send_buffer_bytes',
  'audit_log',
  'audit_arguments',
  'audit_max_bytes',
  'audit_keep',
  'metrics',
  'tracing',
  'store',
  'eager',
  'start_wait_ms',
] as const;

/** serve settings that apply to the next request or the next tools/list. */
const LIVE_SERVE_KEYS = [
  'token',
  'auth',
  'groups',
  'exposure',
  'token_budget',
  'pin',
  'allowed_origins',
  'host_tools_without_auth',
  'agent_commands',
  'metrics_public',
  'open_routes',
  'clients',
  'upstream_limits',
  'tasks',
  'code',
  'keyring_poll_ms',
] as const;

/** Everything of the config a served view is made of, besides its own entry and its servers. */
const VIEW_INPUTS = ['composite_tools', 'hooks'] as const;

const same = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);

/** The servers a process runs: enabled ones, with their connection fields and any problems that set them aside. */
function served(config: McpkitConfig): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, server] of Object.entries(config.mcp_servers)) {
    if (server.disabled === true) continue;
    // A client's own credentials for it are part of how it is reached: a change restarts its connections.
    const credentials = Object.entries(config.serve.clients ?? {}).flatMap(([client, c]) => (c.credentials?.[name] ? [[client, c.credentials[name]]] : []));
    out.set(name, { connection: connectionOf(server), problems: config.unusable?.[`mcp_servers.${name}`] ?? null, credentials });
  }
  return out;
}

function connectionOf(server: ServerConfig): Record<string, unknown> {
  return Object.fromEntries(CONNECTION_KEYS.map((key) => [key, server[key] ?? null]));
}

export function planReload(before: McpkitConfig, after: McpkitConfig): ReloadPlan {
  const old = served(before);
  const now = served(after);
  const servers = {
    added: [...now.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !now.has(n)),
    restarted: [...now.keys()].filter((n) => old.has(n) && !same(old.get(n), now.get(n))),
  };
  const viewsBefore = before.tool_views;
  const viewsAfter = after.tool_views;
  // A view's catalog depends on its own entry, on the entries of the servers it names (shaping
  // included) and on the global inputs. The runtime compares the resolved views; this names the
  // entries for the log line.
  const globalsChanged = VIEW_INPUTS.some((key) => !same(before[key], after[key]));
  const serverChanged = (n: string) => !same(before.mcp_servers[n], after.mcp_servers[n]);
  const namedServers = (spec: McpkitConfig['tool_views'][string]) => (Array.isArray(spec.servers) ? spec.servers : Object.keys(spec.servers ?? {}));
  const views = {
    added: Object.keys(viewsAfter).filter((n) => !Object.hasOwn(viewsBefore, n)),
    removed: Object.keys(viewsBefore).filter((n) => !Object.hasOwn(viewsAfter, n)),
    changed: Object.keys(viewsAfter).filter(
      (n) =>
        Object.hasOwn(viewsBefore, n) &&
        (globalsChanged ||
          !same(viewsBefore[n], viewsAfter[n]) ||
          !same(before.unusable?.[`tool_views.${n}`], after.unusable?.[`tool_views.${n}`]) ||
          namedServers(viewsAfter[n]!).some(serverChanged)),
    ),
  };
  const needsRestart = RESTART_KEYS.filter((key) => !same(before.serve[key], after.serve[key])).map((key) => `serve.${key}`);
  const settings: string[] = (['retrieve', 'registry', 'arango'] as const).filter((key) => !same(before[key], after[key]));
  for (const key of LIVE_SERVE_KEYS) if (!same(before.serve[key], after.serve[key])) settings.push(`serve.${key}`);
  return { servers, views, needsRestart, settings };
}

/** The one log line a reload writes: what it changed, in the config's words. */
export function describePlan(plan: ReloadPlan): string {
  const parts: string[] = [];
  const list = (what: string, names: readonly string[]) => names.length && parts.push(`${what} ${names.join(', ')}`);
  list('servers added:', plan.servers.added);
  list('servers removed:', plan.servers.removed);
  list('servers restarted:', plan.servers.restarted);
  list('views added:', plan.views.added);
  list('views removed:', plan.views.removed);
  list('views changed:', plan.views.changed);
  list('settings changed:', plan.settings);
  if (plan.needsRestart.length) parts.push(`needs a restart to apply: ${plan.needsRestart.join(', ')}`);
  return parts.length ? parts.join('; ') : 'nothing served changed';
}
