import { randomBytes } from 'node:crypto';
import { refreshAuthorization } from '@modelcontextprotocol/client';
import type {
  OAuthClientInformationContext,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { authRequired } from './auth-required.js';
import { expiresAt, type LoginStore, type StoredLogin } from './login-store.js';
import { covers, joinScopes } from './scopes.js';
import type { OAuthSettings } from './settings.js';

/** Tokens this close to expiry are refreshed before they are sent. */
const REFRESH_AHEAD_MS = 60_000;

/** Until a login chose a port, a loopback redirect URI (RFC 8252: any port is accepted for loopback). */
const DEFAULT_REDIRECT = 'http://127.0.0.1/callback';

export interface InteractiveLogin {
  /** The loopback URI the authorization server sends the browser back to. */
  redirectUrl: string;
  /** Sends the user to the authorization page. */
  open(url: URL): void | Promise<void>;
}

export interface ProviderOptions {
  server: string;
  url: string;
  settings: OAuthSettings;
  store: LoginStore;
  /** Present only for `server login`: serve, call and tools never open a browser. */
  interactive?: InteractiveLogin;
}

/**
 * The SDK's OAuth client hooks over mcpkit's stored logins. The SDK does discovery, registration,
 * PKCE, the resource indicator, client authentication, refresh and step-up; this class keeps
 * what it produces, refreshes tokens a minute before they expire, and, outside `server login`,
 * answers a need for the browser with AUTH_REQUIRED instead.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier?: string;
  /** The access token this provider last handed out or saved. */
  private seenAccessToken?: string;
  private expectedState?: string;
  /** What discovery found during this login (see discoveryState). */
  private discoveredNow?: OAuthDiscoveryState;

  constructor(private readonly options: ProviderOptions) {}

  private read(): StoredLogin {
    return this.options.store.read(this.options.server, this.options.url);
  }

  private update(change: (login: StoredLogin) => StoredLogin): StoredLogin {
    return this.options.store.update(this.options.server, this.options.url, change);
  }

  get redirectUrl(): string {
    // Never undefined: the SDK takes a provider without one for a client-credentials client.
    return this.options.interactive?.redirectUrl ?? this.read().redirect_uri ?? DEFAULT_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings } = this.options;
    return {
      client_name: 'mcpkit',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(settings.scopes?.length ? { scope: settings.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  /** The state sent with the last authorization request, which the redirect must carry back. */
  get sentState(): string | undefined {
    return this.expectedState;
  }

  clientInformation(ctx?: OAuthClientInformationContext): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.options.settings;
    if (clientId) return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    const login = this.read();
    // The server moved to another authorization server: register there anew, and never show it
    // the credentials of the old one (SEP-2352).
    if (ctx?.issuer && login.client_issuer && login.client_issuer !== ctx.issuer) return undefined;
    return login.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): void {
    if (this.options.settings.clientId) return; // the config's client stays the config's
    this.update((login) => ({ ...login, client, client_issuer: ctx?.issuer, redirect_uri: this.redirectUrl }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    // A login asks anew (the SDK would refresh stored tokens instead, never adding scope); the
    // stored ones keep working until it has saved new ones, so a login given up loses nothing.
    if (this.options.interactive) return undefined;
    const login = this.read();
    this.seenAccessToken = login.tokens?.access_token;
    if (!login.tokens) return undefined;
    const until = expiresAt(login);
    if (until !== undefined && until - Date.now() < REFRESH_AHEAD_MS && login.tokens.refresh_token) {
      return (await this.refreshAhead(login)) ?? login.tokens;
    }
    return login.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.seenAccessToken = tokens.access_token;
    this.update((login) => ({
      ...login,
      tokens,
      obtained_at: Date.now(),
      // A login that covers what a 403 asked for has no step-up left to do.
      step_up_scope: login.step_up_scope && tokens.scope && covers(tokens.scope, login.step_up_scope) ? undefined : login.step_up_scope,
    }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.options.interactive) {
      const login = this.read();
      throw authRequired(
        this.options.server,
        login.step_up_scope && login.tokens
          ? `it asks for scope "${login.step_up_scope}", which the stored login does not have`
          : login.tokens
            ? 'the stored login was refused and could not be refreshed'
            : 'it is protected by OAuth and there is no login yet',
      );
    }
    await this.options.interactive.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: the authorization was not started by this login');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    // Another process (serve and a terminal share the file) may have refreshed meanwhile, which
    // spends the refresh token this one just had refused: its new tokens are kept.
    if (scope === 'tokens' && this.read().tokens?.access_token !== this.seenAccessToken) return;
    this.update((login) => ({
      ...login,
      ...(scope === 'all' || scope === 'client' ? { client: undefined, redirect_uri: undefined } : {}),
      ...(scope === 'all' || scope === 'tokens' ? { tokens: undefined, obtained_at: undefined } : {}),
      ...(scope === 'all' || scope === 'discovery' ? { discovery: undefined } : {}),
    }));
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.discoveredNow = discovery;
    this.update((login) => ({ ...login, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    // A login reads the server's metadata anew (it may name another authorization server by now),
    // then keeps what it found for its own callback leg.
    if (this.options.interactive) return this.discoveredNow;
    return this.read().discovery;
  }

  /** Notes a scope the server asked for in a 403 insufficient_scope. */
  recordStepUp(scope: string): void {
    this.update((login) => ({ ...login, step_up_scope: joinScopes([login.step_up_scope ?? '', scope]) }));
  }

  /**
   * Refreshes tokens about to expire, so a long session never sees a 401. A failure is left to the
   * SDK's 401 handling, which tries again and reports a refused refresh token as AUTH_REQUIRED.
   */
  private async refreshAhead(login: StoredLogin): Promise<OAuthTokens | undefined> {
    const discovery = login.discovery;
    const client = this.clientInformation();
    if (!discovery?.authorizationServerUrl || !client || !login.tokens?.refresh_token) return undefined;
    try {
      const resource = discovery.resourceMetadata?.resource;
      const tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation: client,
        refreshToken: login.tokens.refresh_token,
        ...(resource ? { resource: new URL(resource) } : {}),
      });
      const stamped = { ...tokens, ...(login.tokens.issuer ? { issuer: login.tokens.issuer } : {}) };
      this.saveTokens(stamped);
      return stamped;
    } catch {
      return undefined;
    }
  }
}
