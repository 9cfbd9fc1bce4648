import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import type { McpkitConfig, ServerConfig } from '../../config/schema/schema.js';
import { defineTool, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import { CLIENT_NAME } from '../../config/schema/serve-schema.js';
import type { ToolContext } from '../../tool/context.js';
import type { Challenge, UpstreamOAuth } from '../../auth/upstream-oauth.js';
import type { LoginStore } from '../../auth/login-store.js';
import type { OAuthSettings } from '../../auth/settings.js';

/** A login that needs more than this many authorizations (step-up after step-up) is stopped. */
const MAX_ROUNDS = 3;

const LOGIN_ONLY_IN_A_TERMINAL = 'Logging in opens a browser and keeps tokens on this machine: it is a terminal command, never offered over MCP.';

function oauthServer(config: McpkitConfig, name: string): ServerConfig & { url: string } {
  const server = config.mcp_servers[name];
  if (!server) throw unknownServer(name, Object.keys(config.mcp_servers));
  if (server.url === undefined)
    throw new ToolError('INVALID_INPUT', `Server "${name}" is a stdio server; OAuth logins are for remote servers (url).`, {
      hint: 'Give a stdio server its credentials with --env.',
    });
  if (!server.auth) {
    throw new ToolError('INVALID_INPUT', `Server "${name}" is not set up for OAuth (mcp_servers.${name}.auth).`, {
      hint: `Add auth: oauth to it, e.g. mcpkit server add ${name} --url ${server.url} --auth oauth --force`,
    });
  }
  return server as ServerConfig & { url: string };
}

/**
 * A client's own login of a server (SERVER@CLIENT in the store): the client must be one of
 * serve.clients (as written: this shell need not resolve its token) and the server per_client,
 * the one kind of server its calls reach with a login of their own.
 */
async function clientLogin(ctx: ToolContext, config: McpkitConfig, server: string, client: string): Promise<string> {
  const { writtenConfig } = await import('../shared/config-access.js');
  const { raw } = await writtenConfig(ctx);
  const clients = Object.keys(((raw.serve as { clients?: object } | undefined)?.clients ?? {}) as object);
  if (!clients.includes(client)) {
    const { notFound } = await import('../../core/suggest.js');
    throw notFound('client', client, clients, 'Add one with: mcpkit clients add NAME');
  }
  if (config.mcp_servers[server]?.per_client !== true)
    throw new ToolError(
      'INVALID_INPUT',
      `Server "${server}" is not per_client: every caller reaches it with the gateway's own login, so a login of client ${client} would never be used.`,
      {
        hint: `Set mcp_servers.${server}.per_client: true for each client to reach it as itself, then log in again with --as.`,
      },
    );
  return `${server}@${client}`;
}

/** Connects and lists tools once; the challenge of a 401/403 when the server wants a (better) login. */
async function tryServer(
  ctx: ToolContext,
  name: string,
  server: ServerConfig,
  oauth: UpstreamOAuth,
): Promise<{ ok: true; tools: number } | { ok: false; challenge: Challenge }> {
  try {
    return { ok: true, tools: (await ctx.servers.with(name, server, (upstream) => upstream.listTools(), { oauth })).length };
  } catch (error) {
    const challenge = oauth.lastChallenge();
    if (challenge && error instanceof ToolError && error.code === 'AUTH_REQUIRED') return { ok: false, challenge };
    if (error instanceof ToolError && error.code === 'UNAVAILABLE') {
      throw new ToolError('UNAVAILABLE', error.message, {
        details: error.details,
        hint: `Check mcp_servers.${name}.url and that the server is up; then log in again.`,
      });
    }
    throw error;
  }
}

export const serverLogin = defineTool({
  name: 'server_login',
  group: 'server',
  command: {
    id: 'server login',
    args: ['name'],
    examples: [
      '<%= config.bin %> server login linear',
      'BROWSER=firefox <%= config.bin %> server login github',
      '<%= config.bin %> server login github --as alice',
      '<%= config.bin %> server login notion --no-browser',
    ],
  },
  title: 'Log in to a protected server',
  description:
    "Log in to a remote server that wants OAuth (auth: oauth): find its authorization server, register mcpkit with it (or use the configured client), and authorize in the browser ($BROWSER, else the system's; the URL is printed too), with PKCE and a loopback redirect. Tokens are kept in $XDG_STATE_HOME/mcpkit/oauth (mode 0600), never in the config and never shown, and refreshed as they expire.",
  input: z.strictObject({
    name: z.string().min(1).describe('Name of the server in mcp_servers.'),
    browser: z.boolean().default(true).describe('Open the authorization page in a browser (--no-browser only prints its URL).'),
    timeout_s: z.int().min(1).max(3600).default(300).describe('How long to wait for the browser to come back.'),
    as: z
      .string()
      .regex(CLIENT_NAME, 'a client name is letters, digits, "_", "." and "-"')
      .optional()
      .describe(
        "A client of serve.clients: the login is its own, used for its calls to a server with per_client (the person who authorizes is that client's).",
      ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw new ToolError('FORBIDDEN', LOGIN_ONLY_IN_A_TERMINAL);
    const config = await ctx.config();
    const server = oauthServer(config, input.name);
    const login = input.as === undefined ? input.name : await clientLogin(ctx, config, input.name, input.as);
    const [
      { auth },
      { storedOAuth, loginStore },
      { listenForRedirect },
      { openInBrowser },
      { loginScope },
      { oauthSettings },
      { StoredOAuthProvider },
      { expiresAt, loginStatus },
    ] = await Promise.all([
      import('@modelcontextprotocol/client'),
      import('../../auth/upstream-oauth.js'),
      import('../../auth/loopback.js'),
      import('../../auth/browser.js'),
      import('../../auth/scopes.js'),
      import('../../auth/settings.js'),
      import('../../auth/client-provider.js'),
      import('../../auth/login-store.js'),
    ]);
    const store = loginStore(ctx.env);
    const settings = oauthSettings(server) ?? {};
    const before = store.read(login, server.url);
    const registeredPort = before.redirect_uri ? Number(new URL(before.redirect_uri).port) || 0 : 0;
    const redirect = await listenForRedirect(registeredPort);
    if (before.redirect_uri && before.redirect_uri !== redirect.url)
      store.update(login, server.url, (stored) => ({ ...stored, client: undefined, redirect_uri: undefined }));
    let authorizations = 0;
    try {
      for (let round = 1; ; round++) {
        // The first round has no tokens at all, to hear what the server asks for (scope, metadata).
        const tried = await tryServer(ctx, input.name, server, storedOAuth(login, server, round === 1 ? { probe: true, store } : { store }));
        if (tried.ok && round > 1)
          return {
            ...loggedIn(input.name, tried.tools, authorizations, store.read(login, server.url), { expiresAt, loginStatus }),
            ...(input.as ? { client: input.as } : {}),
          };
        if (round > MAX_ROUNDS) {
          throw new ToolError(
            'AUTH_FAILED',
            `Server "${input.name}" still refuses after ${MAX_ROUNDS} authorizations${tried.ok ? '' : ` (HTTP ${tried.challenge.status}${tried.challenge.error ? ` ${tried.challenge.error}` : ''})`}.`,
            {
              hint: 'Check that the account may use the server and the scopes it asks for.',
            },
          );
        }
        await authorize({ auth, StoredOAuthProvider, openInBrowser, loginScope }, ctx, { ...input, login }, server, {
          settings,
          store,
          redirect,
          ...(tried.ok ? { askedNothing: true } : { challenge: tried.challenge }),
        });
        authorizations++;
      }
    } finally {
      await redirect.close();
    }
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Logged in to ${r.server}${r.scope ? ` (scope ${r.scope})` : ''}: ${r.tools} tools${r.expires_at ? `; the access token expires ${r.expires_at}${r.refreshable ? ' and is refreshed as needed' : ', then log in again'}` : ''}`,
});

type Redirect = Awaited<ReturnType<Awaited<typeof import('../../auth/loopback.js')>['listenForRedirect']>>;

/** What login reports once the server takes its tokens. */
function loggedIn(
  server: string,
  tools: number,
  authorizations: number,
  login: ReturnType<LoginStore['read']>,
  { expiresAt, loginStatus }: Pick<typeof import('../../auth/login-store.js'), 'expiresAt' | 'loginStatus'>,
) {
  const status = loginStatus(login, Date.now());
  return {
    server,
    logged_in: true,
    tools,
    authorizations,
    ...(status.scope ? { scope: status.scope } : {}),
    ...(expiresAt(login) ? { expires_at: status.expires_at } : {}),
    refreshable: status.refreshable ?? false,
  };
}

/**
 * One authorization: the scope the challenge (and an earlier step-up) asks for, the browser
 * opened on the authorization page (its URL said too), the code taken at the loopback redirect
 * and exchanged for tokens, which the provider stores.
 */
async function authorize(
  deps: {
    auth: typeof import('@modelcontextprotocol/client').auth;
    StoredOAuthProvider: typeof import('../../auth/client-provider.js').StoredOAuthProvider;
    openInBrowser: typeof import('../../auth/browser.js').openInBrowser;
    loginScope: typeof import('../../auth/scopes.js').loginScope;
  },
  ctx: ToolContext,
  input: { name: string; login: string; browser: boolean; timeout_s: number },
  server: { url: string },
  round: { settings: OAuthSettings; store: LoginStore; redirect: Redirect; challenge?: Challenge; askedNothing?: boolean },
): Promise<void> {
  const { settings, store, redirect, challenge } = round;
  const scope = deps.loginScope(challenge?.scope, store.read(input.login, server.url).step_up_scope, settings.scopes);
  const provider = new deps.StoredOAuthProvider({
    server: input.login,
    url: server.url,
    settings,
    store,
    interactive: {
      redirectUrl: redirect.url,
      open: (url) => {
        ctx.waiting(`To log in to ${input.name}, open this URL in a browser (waiting up to ${input.timeout_s} s):\n  ${url.href}`);
        if (input.browser) deps.openInBrowser(url.href, ctx.env);
      },
    },
  });
  const options = {
    serverUrl: server.url,
    ...(scope ? { scope } : {}),
    ...(challenge?.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
  };
  try {
    if ((await deps.auth(provider, options)) === 'REDIRECT') {
      const { code, iss } = await redirect.authorization(() => provider.sentState, input.timeout_s * 1000, ctx.signal);
      await deps.auth(provider, { ...options, authorizationCode: code, ...(iss !== undefined ? { iss } : {}) });
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError('AUTH_FAILED', `Logging in to ${input.name} failed: ${(error as Error).message}`, {
      hint: round.askedNothing
        ? `The server did not ask for a login; check that ${server.url} is protected by OAuth.`
        : 'Check the server URL and the client settings in mcp_servers.' + input.name + '.auth.',
    });
  }
}

export const serverLogout = defineTool({
  name: 'server_logout',
  group: 'server',
  command: { id: 'server logout', args: ['name'], examples: ['<%= config.bin %> server logout linear'] },
  title: "Forget a server's login",
  description: 'Forget the OAuth login of a server: its tokens and the registration mcpkit made, kept in $XDG_STATE_HOME/mcpkit/oauth.',
  input: z.strictObject({
    name: z.string().min(1).describe('Name of the server.'),
    as: z
      .string()
      .regex(CLIENT_NAME, 'a client name is letters, digits, "_", "." and "-"')
      .optional()
      .describe('A client of serve.clients: forget its own login (server login --as).'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw new ToolError('FORBIDDEN', LOGIN_ONLY_IN_A_TERMINAL);
    const { loginStore } = await import('../../auth/upstream-oauth.js');
    const login = input.as === undefined ? input.name : `${input.name}@${input.as}`;
    return { server: input.name, ...(input.as ? { client: input.as } : {}), logged_out: loginStore(ctx.env).remove(login) };
  },
  render: (r) => {
    const whose = r.client ? `client ${r.client}'s login of ${r.server}` : `the login of ${r.server}`;
    return r.logged_out ? `Forgot ${whose}` : `There was no ${whose.replace(/^the /, '')}`;
  },
});
