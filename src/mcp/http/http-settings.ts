import { SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import type { McpkitConfig } from '../../config/schema/schema.js';
import type { HttpSettings } from '../access/route-auth.js';

/**
 * What decides who may use serve --http, from one config and the flags: the tokens, the views
 * with their tokens and scopes, serve.auth, origins, open routes and the named clients. Made once
 * per config generation (a reload applies to the next request). Pure.
 */
export function httpSettingsOf(now: McpkitConfig, flags: { token?: string; allowOrigins?: string[] }, exposureFlag: string | undefined): HttpSettings {
  const oauth = now.serve.auth;
  const token = flags.token ?? now.serve.token;
  return {
    ...(token ? { token } : {}),
    views: Object.entries(now.tool_views).map(([name, v]) => ({
      name,
      description: v.description,
      exposure: exposureFlag ?? v.exposure ?? now.serve.exposure ?? SETTING_DEFAULTS.serve.exposure,
      tokens: v.tokens,
      scopes: v.scopes,
      // A view whose entry cannot be read cannot say whom it admits: nobody, and the other routes close.
      ...(now.unusable?.[`tool_views.${name}`] ? { locked: true } : {}),
    })),
    ...(oauth
      ? {
          oauth: {
            issuer: oauth.issuer,
            ...(oauth.resource ? { resource: oauth.resource } : {}),
            scopes: oauth.scopes ?? [],
            ...(oauth.jwks_uri ? { jwksUri: oauth.jwks_uri } : {}),
            ...(oauth.introspection
              ? { introspection: { url: oauth.introspection.url, clientId: oauth.introspection.client_id, clientSecret: oauth.introspection.client_secret } }
              : {}),
          },
        }
      : {}),
    allowedOrigins: [...(now.serve.allowed_origins ?? []), ...(flags.allowOrigins ?? [])],
    openRoutes: [...(now.serve.open_routes ?? []), ...(now.serve.metrics_public ? ['/metrics'] : [])],
    clients: Object.entries(now.serve.clients ?? {}).map(([name, client]) => ({ name, ...client })),
  };
}
