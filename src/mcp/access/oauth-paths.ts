/**
 * The OAuth namespace of `serve --http`: the paths an OAuth client tries on a server it was given
 * a 401 by (RFC 8414 and RFC 9728 discovery under /.well-known/, and, where it finds no metadata,
 * the default /authorize, /token and /register of the MCP authorization spec). serve is a
 * protected resource at most, never an authorization server: each answers 404, in the error shape
 * an OAuth client reads (RFC 6749 section 5.2, RFC 7591 section 3.2.2: `error` a string, with
 * `error_description`), so the client shows what is wrong instead of "Invalid OAuth error
 * response". Its words avoid what clients take for "log in again" (401, unauthorized, invalid_token,
 * forbidden: mcporter would wait for a browser). Pure.
 */

/** Where an OAuth client looks for an authorization server's endpoints when it has no metadata. */
const ENDPOINTS = ['/authorize', '/token', '/register', '/revoke', '/introspect'];

/** Whether a request path is in the OAuth namespace (then it is answered in OAuth's shape). */
export function isOAuthPath(path: string): boolean {
  return path.startsWith('/.well-known/') || ENDPOINTS.some((endpoint) => path === endpoint || path.startsWith(`${endpoint}/`));
}

/** What a path of the OAuth namespace answers that serve does not serve: OAuth's error shape, saying where tokens come from. */
export function oauthNotFound(path: string, issuer?: string): { error: string; error_description: string } {
  const shown = path.length > 200 ? `${path.slice(0, 200)}...` : path;
  const what = path.startsWith('/.well-known/') ? `No metadata at ${shown}` : `Nothing at ${shown}`;
  const description = issuer
    ? `${what}: this server is a protected resource (RFC 9728), not an authorization server; tokens come from ${issuer}, as /.well-known/oauth-protected-resource says.`
    : `${what}: this server is not an authorization server and registers no OAuth clients; it takes the bearer tokens its operator issues (serve.token, serve.clients). A token it refused is not recognised (rotated, removed or mistyped): ask the operator for the current one.`;
  return { error: 'not_found', error_description: description };
}
