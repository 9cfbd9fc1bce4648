import type { ServerConfig } from '../config/schema/schema.js';

/** A server's `auth:` entry, normalized: `oauth` alone and `{ type: oauth, ... }` mean the same. */
export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  scopes?: readonly string[];
  clientMetadataUrl?: string;
}

export function oauthSettings(server: Pick<ServerConfig, 'auth'>): OAuthSettings | undefined {
  const auth = server.auth;
  if (auth === undefined) return undefined;
  if (auth === 'oauth') return {};
  return { clientId: auth.client_id, clientSecret: auth.client_secret, scopes: auth.scopes, clientMetadataUrl: auth.client_metadata_url };
}
