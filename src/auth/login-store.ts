import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthDiscoveryState, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';
import { atomicWrite } from '../config/files/atomic-write.js';

/**
 * What mcpkit keeps of one server's OAuth login, outside the config: the registration it made (or
 * was given), the tokens, what discovery found, and a scope the server asked for beyond the
 * login's. The SDK stamps client and tokens with the authorization server that issued them and
 * never shows them to another, so one file per server is also one per authorization server.
 */
export interface StoredLogin {
  /** The server's URL when the login was made: a login is not reused for a different URL. */
  url: string;
  client?: OAuthClientInformationMixed;
  /** The authorization server (issuer) the client was registered with: another one never sees it (SEP-2352). */
  client_issuer?: string;
  /** The redirect URI the client was registered with (its loopback port is reused). */
  redirect_uri?: string;
  tokens?: OAuthTokens & { issuer?: string };
  /** When the tokens were received (ms since the epoch); with expires_in, when they expire. */
  obtained_at?: number;
  discovery?: OAuthDiscoveryState;
  /** Scope a 403 insufficient_scope asked for that the tokens lack: the next login asks for it. */
  step_up_scope?: string;
}

/** Logins under $XDG_STATE_HOME/mcpkit/oauth, one 0600 file per server in a 0700 folder. */
export class LoginStore {
  /**
   * The files as last parsed, by path. A proxied call asks for the tokens on every request, and
   * another process (serve beside a terminal) may refresh them at any time: a stat tells whether
   * the file is still the one parsed (each write renames a new file in), which costs far less
   * than reading and parsing it again.
   */
  private readonly parsed = new Map<string, { version: string; login: StoredLogin | undefined }>();

  constructor(readonly dir: string) {}

  private path(server: string): string {
    return join(this.dir, `${server}.json`);
  }

  /** The stored file as parsed; undefined when there is none, or it is unreadable (as good as none). */
  private load(server: string): StoredLogin | undefined {
    const path = this.path(server);
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!stats) return undefined;
    // Nanosecond times: two writes within a millisecond are still told apart.
    const version = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    const known = this.parsed.get(path);
    if (known?.version === version) return known.login;
    let login: StoredLogin | undefined;
    try {
      const stored = JSON.parse(readFileSync(path, 'utf8')) as StoredLogin;
      login = stored && typeof stored === 'object' ? stored : undefined;
    } catch {
      login = undefined;
    }
    this.parsed.set(path, { version, login });
    return login;
  }

  /** The login for this server at this URL, as it is now (another process may have refreshed it). */
  read(server: string, url: string): StoredLogin {
    const stored = this.load(server);
    return stored?.url === url ? stored : { url };
  }

  /** The server's login whatever URL it was made for (for status only: use read() to use it). */
  readAny(server: string): StoredLogin {
    return this.load(server) ?? { url: '' };
  }

  /** Applies a change to the stored login and writes it atomically. */
  update(server: string, url: string, change: (login: StoredLogin) => StoredLogin): StoredLogin {
    const next = change(this.read(server, url));
    // Tokens: the folder is the user's alone and the file 0600 on every write, whatever modes they had.
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    atomicWrite(this.path(server), `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    return next;
  }

  /** Forgets the server's login; whether there was one. */
  remove(server: string): boolean {
    const path = this.path(server);
    if (!existsSync(path)) return false;
    rmSync(path, { force: true });
    return true;
  }
}

/** When the stored tokens expire (ms since the epoch), if the server said. */
export function expiresAt(login: StoredLogin): number | undefined {
  const seconds = login.tokens?.expires_in;
  if (seconds === undefined || login.obtained_at === undefined) return undefined;
  return login.obtained_at + seconds * 1000;
}

/** What `server list` and `server show` say about a login; never a token. */
export interface LoginStatus {
  logged_in: boolean;
  expires_at?: string;
  expired?: boolean;
  refreshable?: boolean;
  scope?: string;
  step_up_scope?: string;
}

export function loginStatus(login: StoredLogin, now: number): LoginStatus {
  if (!login.tokens) return { logged_in: false, ...(login.step_up_scope ? { step_up_scope: login.step_up_scope } : {}) };
  const until = expiresAt(login);
  return {
    logged_in: true,
    ...(until !== undefined ? { expires_at: new Date(until).toISOString(), expired: until <= now } : {}),
    refreshable: login.tokens.refresh_token !== undefined,
    ...(login.tokens.scope ? { scope: login.tokens.scope } : {}),
    ...(login.step_up_scope ? { step_up_scope: login.step_up_scope } : {}),
  };
}
