/**
 * What a stdio server's process is given of mcpkit's environment. Not all of it: a server started
 * from a registry or by `npx` may be anyone's code, and mcpkit's environment holds the tokens of
 * every other server, of serve itself and of the registries. By default a server gets a small
 * safe base, the variables a program needs to run and find its tools, plus its own `env:`;
 * `inherit_env` names more, or (true) passes everything except what belongs to mcpkit and to the
 * rest of the config. Pure.
 */
export const BASE_VARIABLES: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'TMPDIR', 'TZ'];
/** What a Windows program cannot start without (the MCP SDK's own list). */
const WINDOWS_BASE = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
];

export interface ServerEnvInput {
  inherit_env?: boolean | readonly string[];
  env?: Readonly<Record<string, string>>;
}

function inBase(name: string, platform: NodeJS.Platform): boolean {
  return BASE_VARIABLES.includes(name) || name.startsWith('LC_') || (platform === 'win32' && WINDOWS_BASE.includes(name.toUpperCase()));
}

/**
 * The environment of one server's process: from `parent` (mcpkit's), the base and what
 * `inherit_env` names; with `inherit_env: true` everything else too, except mcpkit's own
 * variables and those in `withheld` (the ones the rest of the config names); then the entry's
 * own `env:` on top.
 */
export function serverEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  server: ServerEnvInput,
  withheld: ReadonlySet<string>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const inherit = server.inherit_env ?? false;
  const named = Array.isArray(inherit) ? new Set(inherit) : new Set<string>();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    // The base is no secret and every program needs it, whoever else names it (retrieve.roots: ${HOME}/docs).
    const passes = named.has(name) || inBase(name, platform) || (inherit === true && !withheld.has(name) && !name.startsWith('MCPKIT_'));
    if (passes) out[name] = value;
  }
  return { ...out, ...server.env };
}

/** The variables withheld from one server: those the config names anywhere but in its own entry. Pure. */
export function withheldFrom(
  server: string,
  references: { all: readonly string[]; servers: Readonly<Record<string, readonly string[]>> } | undefined,
): Set<string> {
  const own = new Set(references?.servers[server] ?? []);
  return new Set((references?.all ?? []).filter((name) => !own.has(name)));
}
