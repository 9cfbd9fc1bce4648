/**
 * Reads the MCP server entries of other clients' config files: Claude Desktop and Cursor
 * (`mcpServers`), VS Code (`servers`, or `mcp.servers` in settings.json). Pure.
 */
export interface ImportedServer {
  name: string;
  entry: Record<string, unknown>;
}

export interface ImportResult {
  format: 'mcpServers' | 'servers' | 'mcp.servers';
  servers: ImportedServer[];
  skipped: { name: string; reason: string }[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function stringRecord(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  return entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, String(v)])) : undefined;
}

function convert(raw: Record<string, unknown>): Record<string, unknown> | string {
  const type = typeof raw.type === 'string' ? raw.type : undefined;
  if (typeof raw.command === 'string' && raw.command.trim() !== '') {
    const args = Array.isArray(raw.args) ? raw.args.map(String) : undefined;
    return Object.fromEntries(
      Object.entries({
        command: raw.command,
        args,
        env: stringRecord(raw.env),
        cwd: typeof raw.cwd === 'string' ? raw.cwd : undefined,
        disabled: raw.disabled === true ? true : undefined,
      }).filter(([, v]) => v !== undefined),
    );
  }
  const url = typeof raw.url === 'string' ? raw.url : typeof raw.serverUrl === 'string' ? raw.serverUrl : undefined;
  if (url) {
    // A placeholder (${VAR}, ${VAR:-default}) is filled in when the config loads, as the config's own schema takes it.
    if (!url.includes('${') && !/^https?:\/\//.test(url)) return `url "${url}" is not http(s)`;
    const transport = type === 'sse' ? 'sse' : type === 'http' || type === 'streamable-http' || type === 'streamableHttp' ? 'http' : undefined;
    return Object.fromEntries(Object.entries({ url, headers: stringRecord(raw.headers), transport }).filter(([, v]) => v !== undefined));
  }
  return 'neither command nor url';
}

export function importServers(document: unknown, options: { project?: string } = {}): ImportResult {
  let doc = (document ?? {}) as Record<string, unknown>;
  // ~/.claude.json: the user's servers, and each project's; the project's of the folder this runs in win.
  const projects = doc.projects as Record<string, { mcpServers?: unknown }> | undefined;
  const own = options.project !== undefined && projects && typeof projects === 'object' ? projects[options.project]?.mcpServers : undefined;
  if (own && typeof own === 'object') doc = { ...doc, mcpServers: { ...((doc.mcpServers as object | undefined) ?? {}), ...own } };
  let format: ImportResult['format'];
  let table: unknown;
  if (doc.mcpServers && typeof doc.mcpServers === 'object') [format, table] = ['mcpServers', doc.mcpServers];
  else if (doc.servers && typeof doc.servers === 'object') [format, table] = ['servers', doc.servers];
  else if (doc.mcp && typeof doc.mcp === 'object' && (doc.mcp as Record<string, unknown>).servers)
    [format, table] = ['mcp.servers', (doc.mcp as Record<string, unknown>).servers];
  else throw new Error('no "mcpServers", "servers" or "mcp.servers" object found');
  const servers: ImportedServer[] = [];
  const skipped: ImportResult['skipped'] = [];
  for (const [name, raw] of Object.entries(table as Record<string, unknown>)) {
    if (!NAME.test(name)) {
      skipped.push({ name, reason: 'the name has characters mcpkit does not allow (letters, digits, "_", "-", ".")' });
      continue;
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      skipped.push({ name, reason: 'not an object' });
      continue;
    }
    const entry = convert(raw as Record<string, unknown>);
    if (typeof entry === 'string') skipped.push({ name, reason: entry });
    else servers.push({ name, entry });
  }
  return { format, servers, skipped };
}
