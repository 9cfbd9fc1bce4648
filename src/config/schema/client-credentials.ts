import type { ServerConfig } from './schema.js';

/** One client's own credentials for one server (serve.clients.NAME.credentials.SERVER). */
export interface ServerCredentials {
  env?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
}

/** Who a hub's connections are made for: a named client of serve --http, with its credentials by server. */
export interface CallerIdentity {
  client: string;
  credentials: Readonly<Record<string, ServerCredentials>>;
}

/** A server of a view, as a hub makes its connection (ResolvedView.servers, and what a caller adds). */
export interface ServerForCaller {
  name: string;
  config: ServerConfig;
  problems?: readonly string[];
  problemsHint?: string;
  /** The stored OAuth login the connection uses (LoginStore key). */
  login?: string;
}

/**
 * A server's entry as one caller reaches it. A client's own credentials go over the entry's env or
 * headers, and a per_client server with `auth: oauth` uses the client's own login (SERVER@CLIENT).
 * Over serve --http (`perClient`), a per_client server that a caller has no credentials for is
 * refused, never reached as the gateway: it stands as a server set aside, whose error says what
 * to do. Pure.
 */
export function serverForCaller<S extends ServerForCaller>(server: S, identity: CallerIdentity | undefined, perClient: boolean): S & ServerForCaller {
  const given = identity?.credentials[server.name];
  const ownLogin = identity !== undefined && server.config.per_client === true && server.config.auth !== undefined && server.config.url !== undefined;
  if (given) {
    const config: ServerConfig = {
      ...server.config,
      ...(given.env ? { env: { ...server.config.env, ...given.env } } : {}),
      ...(given.headers ? { headers: { ...server.config.headers, ...given.headers } } : {}),
    };
    return { ...server, config, ...(ownLogin ? { login: `${server.name}@${identity.client}` } : {}) };
  }
  if (ownLogin) return { ...server, login: `${server.name}@${identity.client}` };
  if (!perClient || server.config.per_client !== true || server.problems) return server;
  const who = identity ? `client ${identity.client} has none for it` : 'this caller is not a named client with credentials for it';
  return {
    ...server,
    problems: [`it is reached only with each client's own credentials (mcp_servers.${server.name}.per_client), and ${who}`],
    problemsHint: identity
      ? `Give the client its own: serve.clients.${identity.client}.credentials.${server.name} (${server.config.command !== undefined ? 'env' : 'headers'})${server.config.auth ? `, or log it in with: mcpkit server login ${server.name} --as ${identity.client}` : ''}.`
      : `Connect as a named client of serve.clients that has credentials for ${server.name} (mcpkit clients add NAME, then its credentials).`,
  };
}

/** Whether a client's calls to a view need connections of their own: it has credentials for one of its servers, or one is per_client. Pure. */
export function needsOwnConnections(
  servers: readonly { name: string; config: Pick<ServerConfig, 'per_client'> }[],
  identity: CallerIdentity | undefined,
): boolean {
  if (!identity) return false;
  return servers.some((s) => identity.credentials[s.name] !== undefined || s.config.per_client === true);
}
