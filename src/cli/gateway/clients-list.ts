import type { ChalkInstance } from 'chalk';
import type { Runtime } from '../../app/runtime.js';
import type { ClientRow } from '../../mcp/http/client-report.js';
import type { SeenSource } from './last-seen.js';

/** A client as `clients list` shows it: its settings, and when it was last seen (null: not known). */
export type ListedClient = ClientRow & { last_seen: string | null };

export interface ClientsList {
  clients: ListedClient[];
  /** Where last_seen comes from: serve.store, else the audit log, else nowhere. */
  last_seen_from: SeenSource;
  upstream_limits: Record<string, { max_concurrent: number | null; rate: string | null; queue_ms: number }>;
  /**
   * Why serve cannot use its serve section now (an unset ${VAR}, a bad value): the clients are
   * then listed as written, and serve --http would refuse to start.
   */
  problems?: readonly string[];
}

/**
 * The config's named clients and upstream limits. A serve section set aside for its problems (a
 * shell without the agents' ${VAR}s) is read as written, tokens never shown, and its problems said:
 * not "no clients" for a config that has them.
 */
export async function listClients(runtime: Runtime): Promise<ClientsList> {
  const [{ clientRows }, { serveAsWritten }, { lastSeen }] = await Promise.all([
    import('../../mcp/http/client-report.js'),
    import('./serve-as-written.js'),
    import('./last-seen.js'),
  ]);
  const { serve, problems } = await serveAsWritten(runtime);
  const rows = clientRows(serve);
  const seen = await lastSeen(
    serve,
    runtime.configLocation.path,
    rows.map((r) => r.name),
  );
  return {
    clients: rows.map((row) => ({ ...row, last_seen: seen.times[row.name] ?? null })),
    last_seen_from: seen.source,
    upstream_limits: Object.fromEntries(
      Object.entries(serve.upstream_limits ?? {}).map(([server, l]) => [
        server,
        { max_concurrent: l.max_concurrent ?? null, rate: l.rate ?? null, queue_ms: l.queue_ms ?? 0 },
      ]),
    ),
    ...(problems ? { problems } : {}),
  };
}

/** A time of the config as the table shows it, marked once it has passed. */
function when(iso: string | null, now: number, past: string): string {
  if (iso === null) return '';
  return Date.parse(iso) <= now ? `${iso} (${past})` : iso;
}

export async function renderClients(result: ClientsList, color: ChalkInstance, now = Date.now()): Promise<string> {
  const { createRenderUi } = await import('../terminal/render.js');
  const ui = createRenderUi(color);
  const problems = result.problems?.length
    ? ['', color.yellow(`serve cannot use its serve section as the config stands (serve --http would not start):`), ...result.problems.map((p) => `  ${p}`)]
    : [];
  if (!result.clients.length && !Object.keys(result.upstream_limits).length)
    return [
      'No serve.clients: every token of the config is an unnamed client with no rules. Add one with: mcpkit clients add NAME --view VIEW',
      ...problems,
    ].join('\n');
  const clients = result.clients.map((c) => ({
    client: c.name,
    by: c.recognised_by,
    routes: c.routes === 'every route' ? 'every route' : c.routes.join(', '),
    tools: c.tools.length ? c.tools.join('  ') : 'all',
    read_only: c.read_only ? 'yes' : '',
    rate: c.rate ?? '',
    max_concurrent: c.max_concurrent ?? '',
    expires: when(c.token_expires, now, 'expired'),
    grace: when(c.grace_until, now, 'ended'),
    credentials: c.credentials.join(', '),
    last_seen: c.last_seen ?? (result.last_seen_from === 'unknown' ? 'unknown' : 'not seen'),
  }));
  const limits = Object.entries(result.upstream_limits).map(([server, l]) => ({
    server,
    max_concurrent: l.max_concurrent ?? '',
    rate: l.rate ?? '',
    queue_ms: l.queue_ms,
  }));
  return [...(clients.length ? [ui.table(clients)] : []), ...(limits.length ? ['', 'upstream_limits:', ui.table(limits)] : []), ...problems].join('\n');
}
