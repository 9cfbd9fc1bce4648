import { ToolError } from '../core/errors.js';

/** The error every use of a server that needs (another) login gets. */
export function authRequired(login: string, why: string, details: Record<string, unknown> = {}): ToolError {
  // A client's own login is kept as SERVER@CLIENT (serve.clients.NAME and per_client servers).
  const [server, client] = login.split('@') as [string, string | undefined];
  if (client !== undefined)
    return new ToolError('AUTH_REQUIRED', `Server "${server}" needs client ${client}'s own login: ${why}.`, {
      details: { server, client, ...details },
      hint: `The gateway's admin runs: mcpkit server login ${server} --as ${client}`,
    });
  return new ToolError('AUTH_REQUIRED', `Server "${server}" needs you to log in: ${why}.`, {
    details: { server, ...details },
    hint: `Run: mcpkit server login ${server}`,
  });
}
