import type { ServerConfig } from '../config/schema/schema.js';
import { ToolError } from '../core/errors.js';
import { authRequired } from './auth-required.js';
import type { UpstreamOAuth } from './upstream-oauth.js';

/** The server an error came from, as far as the mapping needs it. */
export interface AuthSubject {
  name: string;
  config: Pick<ServerConfig, 'url' | 'headers'>;
  /** The OAuth of the connection, when the server has `auth: oauth`. */
  oauth?: UpstreamOAuth;
}

/**
 * The error a failure becomes when it means "credentials": for a server with `auth: oauth`,
 * AUTH_REQUIRED when the stored login was refused and could not be refreshed, or a 403 asked for
 * scope the login lacks; for one without, a 401 says its header was refused (AUTH_FAILED) or that
 * it wants credentials it was never given (AUTH_REQUIRED). Undefined for any other error.
 */
export function upstreamAuthFailure(error: unknown, subject: AuthSubject): ToolError | undefined {
  if (error instanceof ToolError) return error.code === 'AUTH_REQUIRED' ? error : undefined;
  const e = error as { name?: string; message?: string } | undefined;
  if (!e) return undefined;
  const status = httpStatusOf(error);
  if (!subject.oauth) return status === 401 ? credentialsWanted(subject) : undefined;
  if (e.name !== 'UnauthorizedError' && status !== 401 && status !== 403) return undefined;
  const challenge = subject.oauth.lastChallenge();
  const stepUp = challenge?.status === 403 && challenge.error === 'insufficient_scope' ? challenge.scope : undefined;
  return stepUp
    ? authRequired(subject.name, `it asks for scope "${stepUp}", which the stored login does not have`, { scope: stepUp })
    : authRequired(subject.name, `it refused the stored login (${e.message ?? 'unauthorized'})`);
}

/**
 * The HTTP status an SDK transport error carries: 2.x's SdkHttpError has it as `status` (its `code`
 * is the SDK's own name for the failure); the SSE transport still puts it in a numeric `code`.
 */
function httpStatusOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; status?: unknown } | undefined;
  if (typeof e?.status === 'number') return e.status;
  return typeof e?.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : undefined;
}

/** A 401 from a server without auth: oauth: its header was refused, or it wants credentials it was never given. */
function credentialsWanted({ name, config }: AuthSubject): ToolError {
  if (Object.keys(config.headers ?? {}).some((k) => k.toLowerCase() === 'authorization')) {
    return new ToolError('AUTH_FAILED', `Server "${name}" refused the credentials in mcp_servers.${name}.headers (HTTP 401).`, {
      details: { server: name },
      hint: 'Check the token its Authorization header carries.',
    });
  }
  return new ToolError('AUTH_REQUIRED', `Server "${name}" wants credentials (HTTP 401).`, {
    details: { server: name },
    hint: `If it uses OAuth: mcpkit server add ${name} --url ${config.url} --auth oauth --force, then mcpkit server login ${name}; else give it a header, e.g. --header "Authorization=Bearer \${TOKEN}".`,
  });
}
