import { createHash } from 'node:crypto';

/**
 * What the config's schema cannot see one part at a time: names one part gives another (a view's
 * servers, the default registry, a client's views and credentials), two servers published under
 * one prefix, and one token standing for two identities. Read only where a part has the shape it
 * needs, so `config validate` says these beside the schema's other problems. Pure.
 */
export function crossReferenceIssues(config: Record<string, unknown>, issue: (path: (string | number)[], message: string) => void): void {
  const registry = objectOr(config.registry);
  const sources = objectOr(registry.sources);
  const registries = ['official', 'pulsemcp', ...Object.keys(sources)];
  if (typeof registry.default === 'string' && !registries.includes(registry.default))
    issue(['registry', 'default'], `no registry named "${registry.default}" (known: ${registries.join(', ')})`);
  for (const [source, spec] of Object.entries(sources)) {
    if (objectOr(spec).url === undefined && source !== 'official' && source !== 'pulsemcp')
      issue(['registry', 'sources', source, 'url'], 'a registry needs a url (only the built-in official and pulsemcp may leave it out)');
  }
  const servers = objectOr(config.mcp_servers);
  // Two servers published under one prefix (a.b and a_b both as a_b__): one would take the other's tool names.
  for (const [server, others] of samePrefix(Object.keys(servers))) {
    issue(
      ['mcp_servers', server],
      `"${server}" and ${others.map((o) => `"${o}"`).join(', ')} are published under one prefix (${sanitizeName(server)}__); rename one`,
    );
  }
  const views = objectOr(config.tool_views);
  for (const [view, spec] of Object.entries(views)) {
    const listed = objectOr(spec).servers;
    const named = Array.isArray(listed) ? listed.filter((x): x is string => typeof x === 'string') : Object.keys(objectOr(listed));
    for (const server of named) {
      if (!Object.hasOwn(servers, server)) issue(['tool_views', view, 'servers', server], `no server named "${server}" in mcp_servers`);
    }
  }
  servedClientIssues({ serve: objectOr(config.serve), tool_views: views, mcp_servers: servers }, issue);
}

/** A value that should be an object, as one: anything else (a part the schema refuses) reads as empty. */
function objectOr(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * What the schema of serve.clients cannot see alone: routes that name no view, and a token that
 * would stand for two identities (another client's, serve.token, a view's), which would make who
 * called a guess.
 */
function servedClientIssues(
  config: { serve: Record<string, unknown>; tool_views: Record<string, unknown>; mcp_servers: Record<string, unknown> },
  issue: (path: (string | number)[], message: string) => void,
) {
  // Keyed by each token's digest, so an issued client's token_sha256 is compared with the written tokens too.
  const owners = new Map<string, string>();
  const digest = (token: string) => createHash('sha256').update(token).digest('hex');
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : []);
  if (typeof config.serve.token === 'string') owners.set(digest(config.serve.token), 'serve.token');
  for (const [view, spec] of Object.entries(config.tool_views))
    for (const token of strings(objectOr(spec).tokens)) owners.set(digest(token), `tool_views.${view}.tokens`);
  for (const [name, raw] of Object.entries(objectOr(config.serve.clients))) {
    const client = objectOr(raw);
    for (const [i, view] of strings(client.views).entries()) {
      if (view !== 'default' && !Object.hasOwn(config.tool_views, view))
        issue(['serve', 'clients', name, 'views', i], `no view named "${view}" in tool_views ("default" is /mcp)`);
    }
    for (const [server, given] of Object.entries(objectOr(client.credentials))) {
      const entry = config.mcp_servers[server];
      const at = ['serve', 'clients', name, 'credentials', server];
      if (entry === undefined) issue(at, `no server named "${server}" in mcp_servers`);
      else if (objectOr(given).env !== undefined && objectOr(entry).command === undefined)
        issue([...at, 'env'], `"${server}" is a remote server: give it headers, not env`);
      else if (objectOr(given).headers !== undefined && objectOr(entry).url === undefined)
        issue([...at, 'headers'], `"${server}" is a stdio server: give it env, not headers`);
    }
    const key = typeof client.token === 'string' ? 'token' : typeof client.token_sha256 === 'string' ? 'token_sha256' : undefined;
    if (!key) continue;
    const hash = key === 'token' ? digest(client.token as string) : (client.token_sha256 as string);
    const owner = owners.get(hash);
    if (owner) issue(['serve', 'clients', name, key], `the same token as ${owner}: each client needs a token of its own`);
    else owners.set(hash, `serve.clients.${name}.${key}`);
  }
  for (const server of Object.keys(objectOr(config.serve.upstream_limits))) {
    if (!Object.hasOwn(config.mcp_servers, server)) issue(['serve', 'upstream_limits', server], `no server named "${server}" in mcp_servers`);
  }
}

/** Servers whose names are published alike (characters other than letters, digits, "_" and "-" become "_"), each with the others. Pure. */
function samePrefix(names: readonly string[]): [string, string[]][] {
  const byPrefix = new Map<string, string[]>();
  for (const n of names) byPrefix.set(sanitizeName(n), [...(byPrefix.get(sanitizeName(n)) ?? []), n]);
  return [...byPrefix.values()]
    .filter((group) => group.length > 1)
    .flatMap((group) => group.map((n) => [n, group.filter((o) => o !== n)] as [string, string[]]));
}

function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
