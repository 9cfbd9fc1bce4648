import type { McpkitConfig } from '../../config/schema/schema.js';
import { compileClientRules, restricts, ruleText, type AccessDecision } from '../../proxy/catalog/client-access.js';
import { sameSecret } from '../access/http-guards.js';
import { clientOfToken, tokenId } from '../access/route-access.js';

/** One configured client of serve --http, as `mcpkit clients` shows it (never its token). */
export interface ClientRow {
  name: string;
  /** How it is recognised: its token (written in the config), an issued token (its digest only: clients add), its OAuth tokens' subject or claims. */
  recognised_by: 'token' | 'issued token' | 'subject' | 'claims';
  /** Its routes: view names and "default" for /mcp; "every route" when it has none. */
  routes: string[] | 'every route';
  tools: string[];
  read_only: boolean;
  rate: string | null;
  max_concurrent: number | null;
  /** When its token stops working (an ISO time); null: never. */
  token_expires: string | null;
  /** Until when its token before a rotation with --grace still works; null: no grace. */
  grace_until: string | null;
  /** The servers it has credentials of its own for (names only, never a value). */
  credentials: string[];
}

/** Who a token or name stands for under this config. */
export type Who =
  | { kind: 'client'; name: string; row: ClientRow }
  | { kind: 'serve-token'; name: 'token:serve' }
  | { kind: 'view-token'; name: string; views: string[] }
  | { kind: 'unknown' };

type Serve = McpkitConfig['serve'];

/** The clients of a config's serve section, in their order. Pure. */
export function clientRows(serve: Serve): ClientRow[] {
  return Object.entries(serve.clients ?? {}).map(([name, c]) => ({
    name,
    recognised_by: c.token !== undefined ? 'token' : c.token_sha256 !== undefined ? 'issued token' : c.subject !== undefined ? 'subject' : 'claims',
    routes: c.views ?? 'every route',
    tools: (c.tools ?? []).map(ruleText),
    read_only: c.read_only === true,
    rate: c.rate ?? null,
    max_concurrent: c.max_concurrent ?? null,
    token_expires: c.token_expires ?? null,
    grace_until: c.previous_token_until ?? null,
    credentials: Object.keys(c.credentials ?? {}),
  }));
}

/** A client's name, or a token the config knows (a client's, serve.token, a view's). Pure. */
export function whoIs(config: Pick<McpkitConfig, 'serve' | 'tool_views'>, tokenOrName: string): Who {
  const rows = clientRows(config.serve);
  const byName = rows.find((r) => r.name === tokenOrName);
  if (byName) return { kind: 'client', name: byName.name, row: byName };
  const named = Object.entries(config.serve.clients ?? {}).map(([name, c]) => ({ name, ...c }));
  const byToken = clientOfToken(named, tokenOrName);
  if (byToken) return { kind: 'client', name: byToken.name, row: rows.find((r) => r.name === byToken.name)! };
  if (config.serve.token !== undefined && sameSecret(tokenOrName, config.serve.token)) return { kind: 'serve-token', name: 'token:serve' };
  const views = Object.entries(config.tool_views)
    .filter(([, v]) => v.tokens?.some((t) => sameSecret(tokenOrName, t)))
    .map(([name]) => name);
  if (views.length) return { kind: 'view-token', name: tokenId(tokenOrName), views };
  return { kind: 'unknown' };
}

/** Whether a client may call a tool, and which rule decided (`readOnly`: what the tool declares). Pure. */
export function decideFor(serve: Serve, client: string, tool: { name: string; readOnly: boolean }): AccessDecision {
  const spec = serve.clients?.[client];
  if (!spec || !restricts(spec)) return { allowed: true, because: 'the client has no rules' };
  return compileClientRules(spec)(tool);
}
