import { homedir } from 'node:os';
import { join } from 'node:path';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import type { FetchLike } from '@modelcontextprotocol/client';
import { stateDir } from '../config/schema/defaults.js';
import type { ServerConfig } from '../config/schema/schema.js';
import { StoredOAuthProvider } from './client-provider.js';
import { LoginStore } from './login-store.js';
import { oauthSettings } from './settings.js';

/** What a 401 or 403 said in WWW-Authenticate (RFC 6750, RFC 9728). */
export interface Challenge {
  status: number;
  scope?: string;
  error?: string;
  resourceMetadataUrl?: URL;
}

/** The OAuth side of one upstream connection: the provider the SDK transport uses, and what it heard. */
export interface UpstreamOAuth {
  provider?: StoredOAuthProvider;
  fetch: FetchLike;
  /** The last 401/403 challenge seen on this connection. */
  lastChallenge(): Challenge | undefined;
}

/** Logins live in $XDG_STATE_HOME/mcpkit/oauth. */
export function loginStore(env: NodeJS.ProcessEnv): LoginStore {
  return new LoginStore(join(stateDir(env, homedir()), 'oauth'));
}

/**
 * A fetch that notes every 401/403 challenge before the SDK acts on it: a 403 insufficient_scope
 * is remembered with the login, so the next `server login` asks for that scope too.
 */
function recordingFetch(onChallenge: (challenge: Challenge) => void): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status === 401 || response.status === 403) {
      const params = extractWWWAuthenticateParams(response);
      onChallenge({ status: response.status, ...params });
    }
    return response;
  };
}

/**
 * A server with `auth: oauth`, used with its stored login (serve, call, tools, server test), or
 * with no login at all (`probe`: `server login` hears what the server asks for).
 */
export function storedOAuth(server: string, config: Pick<ServerConfig, 'url' | 'auth'>, mode: { probe?: boolean; store: LoginStore }): UpstreamOAuth {
  const provider = mode.probe ? undefined : new StoredOAuthProvider({ server, url: config.url!, settings: oauthSettings(config) ?? {}, store: mode.store });
  let last: Challenge | undefined;
  return {
    provider,
    fetch: recordingFetch((challenge) => {
      last = challenge;
      if (challenge.status === 403 && challenge.error === 'insufficient_scope' && challenge.scope) provider?.recordStepUp(challenge.scope);
    }),
    lastChallenge: () => last,
  };
}
