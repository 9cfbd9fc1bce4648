import { ToolError } from '../core/errors.js';

/** The error every use of a server that needs (another) login gets. */
export function authRequired(server: string, why: string, details: Record<string, unknown> = {}): ToolError {
  return new ToolError('AUTH_REQUIRED', `Server "${server}" needs you to log in: ${why}.`, {
    details: { server, ...details },
    hint: `Run: mcpkit server login ${server}`,
  });
}
