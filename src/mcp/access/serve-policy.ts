import { EXPOSURES, TOKEN_BUDGET_RANGE, type Exposure } from '../../config/schema/defaults.js';
import type { McpkitConfig } from '../../config/schema/schema.js';
import { field, ToolError } from '../../core/errors.js';
import type { Policy } from '../../tool/context.js';

/** `mcpkit serve`'s flags, as the oclif command and the fast path give them. */
export interface ServeOptions {
  configFlag?: string;
  view?: string;
  eager?: boolean;
  http?: boolean;
  host?: string;
  port?: string | number;
  token?: string;
  /** The variable holding the token (else MCPKIT_TOKEN): keeps it out of argv. */
  tokenEnv?: string;
  /** No tool with readOnlyHint: false is listed or callable, mcpkit's own or an upstream's. */
  readOnly?: boolean;
  /** Browser origins allowed over HTTP besides loopback ones. */
  allowOrigins?: string[];
  /** mcpkit's own groups to serve, comma-separated (else serve.groups, else all). */
  groups?: string;
  /** How every view lists its tools, whatever the config says. */
  exposure?: string;
  /** The token budget of exposure auto for every view. */
  tokenBudget?: string | number;
  /** Where the audit log goes (else serve.audit_log). */
  auditLog?: string;
  version: string;
  /** The environment and folder serve runs in: the process's own, unless a test serves in its own process with others. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * What serve's flags and config decide before anything starts: flags that are refused, and the
 * policy of what is served. Pure but for loading the tool groups' names.
 */
/** An empty value would otherwise mean "no token", "every interface" or "the whole catalog", in silence. */
export function refuseEmptyFlags(options: ServeOptions): void {
  for (const [flag, value] of [
    ['token', options.token],
    ['host', options.host],
    ['view', options.view],
    ['groups', options.groups],
  ] as const) {
    if (value !== undefined && value.trim() === '') {
      throw new ToolError('INVALID_INPUT', `${field(flag)} is empty; give a value, or leave the flag out.`);
    }
  }
}

/**
 * Over HTTP every view has its own route, so --view would choose nothing: refused as bad usage
 * rather than ignored, with the URL the view is served at. (Serving the view at /mcp instead would
 * give one view two URLs, and /mcp is the default catalog everywhere else.)
 */
export function refuseViewOverHttp(options: ServeOptions): void {
  if (!options.http || options.view === undefined) return;
  throw new ToolError(
    'INVALID_INPUT',
    `--view does not apply to --http: every view is served at its own route, this one at /view/${options.view}/mcp, and /mcp serves the default catalog.`,
    { hint: `Point the client at http://HOST:PORT/view/${options.view}/mcp and leave out --view.` },
  );
}

/**
 * The policy of what is served and how it is listed: --read-only, --groups (else serve.groups),
 * --exposure and --token-budget, checked here so that a typo stops serve at start with the names
 * it knows. Over HTTP without authentication (no token), tools that write the config or start
 * processes are not offered unless the config says so (serve.host_tools_without_auth: true): any
 * web page the user visits, or anyone who can reach the port, could otherwise plant a command and run it.
 */
export async function servePolicy(options: ServeOptions, config: McpkitConfig): Promise<Policy> {
  const fromFlag = options.groups
    ?.split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const groups = fromFlag ?? config.serve.groups;
  if (groups) {
    const known = (await import('../../tools/index.js')).toolGroups.map((g) => g.name);
    const unknown = groups.filter((g) => !known.includes(g));
    if (unknown.length) {
      const where = fromFlag ? '--groups' : 'serve.groups';
      throw new ToolError(fromFlag ? 'INVALID_INPUT' : 'CONFIG_INVALID', `${where} names unknown group(s) ${unknown.map((g) => `"${g}"`).join(', ')}.`, {
        hint: `Known groups: ${known.join(', ')}.`,
      });
    }
  }
  if (options.exposure !== undefined && !(EXPOSURES as readonly string[]).includes(options.exposure)) {
    throw new ToolError('INVALID_INPUT', `--exposure must be one of ${EXPOSURES.join(', ')}, got "${options.exposure}".`);
  }
  let tokenBudget: number | undefined;
  if (options.tokenBudget !== undefined) {
    tokenBudget = Number(options.tokenBudget);
    const { min, max } = TOKEN_BUDGET_RANGE;
    if (!Number.isInteger(tokenBudget) || tokenBudget < min || tokenBudget > max) {
      throw new ToolError('INVALID_INPUT', `--token-budget must be a whole number of tokens from ${min} to ${max}, got "${options.tokenBudget}".`);
    }
  }
  const authenticated =
    (options.token ?? config.serve.token) !== undefined || config.serve.auth !== undefined || Object.keys(config.serve.clients ?? {}).length > 0;
  const hostTools = !options.http || authenticated || config.serve.host_tools_without_auth === true;
  return {
    readOnly: options.readOnly === true,
    ...(groups ? { groups } : {}),
    ...(options.exposure ? { exposure: options.exposure as Exposure } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(hostTools ? {} : { hostTools: false }),
  };
}

export function parsePort(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ToolError('INVALID_INPUT', `--port must be a whole number from 0 to 65535, got "${value}".`);
  }
  return port;
}
