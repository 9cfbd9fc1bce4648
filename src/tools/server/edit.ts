import * as z from 'zod';
import { serverName as configServerName } from '../../config/schema/schema-parts.js';
import { field, ToolError } from '../../core/errors.js';
import { PROTOCOL_CHOICES } from '../../config/schema/defaults.js';
import { CONFIG_WRITE, defineTool } from '../../tool/define.js';
import { editConfigFile } from '../shared/config-access.js';
import { boxWords, requirePersonFor, sandboxFor, serverCommandLine, serverConnectionLines } from '../shared/approval.js';
import { commandLineFor } from '../../tool/command-line.js';
import { checkToolNames } from '../shared/tool-names.js';

const serverName = z.string().min(1).describe('Name of the server in the config (mcp_servers.NAME).');
/** A new server's name is checked as the config checks it: a bad one is bad usage, before any file is read. */
const newServerName = configServerName().describe('Name of the server in the config (mcp_servers.NAME).');

export const serverAdd = defineTool({
  name: 'server_add',
  group: 'server',
  command: {
    id: 'server add',
    args: ['name'],
    flagNames: { args: 'arg', headers: 'header', scopes: 'scope' },
    chars: { env: 'e', headers: 'H' },
    pairs: ['env', 'headers'],
    afterDoubleDash: ['command', 'args'],
    urlWord: 'url',
    examples: [
      '<%= config.bin %> server add everything -- npx -y @modelcontextprotocol/server-everything',
      '<%= config.bin %> server add linear https://mcp.linear.app/mcp --auth oauth',
      '<%= config.bin %> server add memory -e MEMORY_FILE_PATH=/tmp/memory.json -- npx -y @modelcontextprotocol/server-memory',
      '<%= config.bin %> server add everything --command npx --arg -y --arg @modelcontextprotocol/server-everything',
      '<%= config.bin %> server add github --url https://api.githubcopilot.com/mcp/ --header "Authorization=Bearer \\${GITHUB_TOKEN}"',
      '<%= config.bin %> server add linear --url https://mcp.linear.app/mcp --auth oauth',
      '<%= config.bin %> server add weather --url https://weather.example.com/mcp --protocol 2026-07-28',
      '<%= config.bin %> server add memory --command npx --arg -y --arg @modelcontextprotocol/server-memory --env MEMORY_FILE_PATH=/tmp/memory.json --force',
    ],
  },
  title: 'Add an upstream MCP server',
  description:
    "Add an upstream MCP server to the config: a local one started with --command (stdio) or a remote one at --url.\nAn existing name is refused unless --force (the replaced server's tools are approved again). Values typed in a terminal may use ${VAR} placeholders, kept as written in the file; what an agent gives is kept as text, never filled in from mcpkit's environment.",
  input: z.strictObject({
    name: newServerName,
    command: z.string().min(1).optional().describe('Executable of a stdio server.'),
    args: z.array(z.string()).optional().describe('Argument for the command (repeat for several).'),
    env: z.record(z.string(), z.string()).optional().describe('Environment variables for the server (in a terminal: KEY=VALUE, repeatable).'),
    cwd: z.string().optional().describe('Working directory of the server.'),
    url: z.string().optional().describe('Endpoint of a remote server (streamable HTTP or SSE).'),
    headers: z.record(z.string(), z.string()).optional().describe('HTTP headers for a remote server (in a terminal: NAME=VALUE, repeatable).'),
    transport: z.enum(['auto', 'http', 'sse']).optional().describe('Remote transport (default auto: HTTP, falling back to SSE).'),
    protocol: z
      .enum(PROTOCOL_CHOICES)
      .optional()
      .describe('MCP revision to speak (default auto: probe with server/discover, fall back to 2025-11-25); a revision pins it.'),
    auth: z.enum(['oauth']).optional().describe('oauth: the server wants an OAuth login (then: mcpkit server login NAME).'),
    client_id: z.string().min(1).optional().describe('OAuth client registered beforehand (implies --auth oauth).'),
    client_secret: z.string().min(1).optional().describe('Its secret; use ${VAR}.'),
    scopes: z.array(z.string().min(1)).optional().describe('OAuth scope to ask for when the server names none (repeatable).'),
    client_metadata_url: z.string().min(1).optional().describe('https URL of a client ID metadata document to use as client_id.'),
    description: z.string().optional().describe('What the server is for.'),
    timeout_ms: z.int().positive().optional().describe('Timeout for connecting and for each call.'),
    sandbox: z
      .boolean()
      .optional()
      .describe(
        'Run the stdio server in a box (bubblewrap): none of your files, no network unless the config says (default: a box with the network when an agent adds it, none from a terminal).',
      ),
    literal_secrets: z
      .boolean()
      .default(false)
      .describe('Store values that look like secrets (a token in a header, env or argument) as written; without it they are refused: write ${VAR} instead.'),
    force: z.boolean().default(false).describe('Replace a server of the same name.'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    if ((input.command === undefined) === (input.url === undefined)) {
      throw new ToolError('INVALID_INPUT', `Give exactly one of ${field('command')} (a local stdio server) or ${field('url')} (a remote server).`);
    }
    if (input.url !== undefined && (input.args || input.env || input.cwd)) {
      throw new ToolError(
        'INVALID_INPUT',
        `${field('args')}, ${field('env')} and ${field('cwd')} apply to ${field('command')} servers, not to ${field('url')}.`,
      );
    }
    if (input.url !== undefined && input.sandbox)
      throw new ToolError('INVALID_INPUT', `${field('sandbox')} applies to ${field('command')} servers, not to ${field('url')}.`);
    if (input.command !== undefined && (input.headers || input.transport)) {
      throw new ToolError('INVALID_INPUT', `${field('headers')} and ${field('transport')} apply to ${field('url')} servers, not to ${field('command')}.`);
    }
    const oauthFields = {
      client_id: input.client_id,
      client_secret: input.client_secret,
      scopes: input.scopes,
      client_metadata_url: input.client_metadata_url,
    };
    const oauthDetails = Object.fromEntries(Object.entries(oauthFields).filter(([, v]) => v !== undefined));
    if ((input.auth !== undefined || Object.keys(oauthDetails).length) && input.url === undefined) {
      throw new ToolError(
        'INVALID_INPUT',
        `${field('auth')} and the OAuth client fields apply to ${field('url')} servers; a ${field('command')} server gets credentials from ${field('env')}.`,
      );
    }
    const auth = Object.keys(oauthDetails).length ? { type: 'oauth', ...oauthDetails } : input.auth;
    const { addServer } = await import('../../config/edits/servers-edit.js');
    const entry = Object.fromEntries(
      Object.entries({
        description: input.description,
        command: input.command,
        args: input.args,
        env: input.env,
        cwd: input.cwd,
        url: input.url,
        headers: input.headers,
        transport: input.transport,
        protocol: input.protocol,
        auth,
        timeout_ms: input.timeout_ms,
        sandbox: input.command !== undefined ? await sandboxFor(ctx, input.sandbox) : undefined,
        // An agent's server is marked as such: starting it for a look asks a person (server_test).
        added_by: ctx.surface === 'mcp' ? 'agent' : undefined,
      }).filter(([, v]) => v !== undefined),
    );
    if (!input.literal_secrets) await refuseLiteralSecrets(input.name, entry, ctx.surface);
    const command = serverCommandLine(entry);
    const connects = serverConnectionLines(entry as { url?: string; headers?: Record<string, string> });
    if (command || connects) {
      await requirePersonFor(
        ctx,
        command
          ? { action: `add the stdio server "${input.name}" to the config, to run ${boxWords(entry.sandbox)}`, commands: [command] }
          : { action: `add the remote server "${input.name}" to the config`, commands: [], connects: connects! },
        commandLineFor(serverAdd, input),
      );
    }
    const { value, path } = await editConfigFile(ctx, (doc) => addServer(doc, input.name, entry, { force: input.force }));
    return { server: input.name, replaced: value.replaced, config: path, entry };
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} ${r.replaced ? 'Replaced' : 'Added'} server ${r.server} in ${r.config}${r.entry.auth ? `\nLog in to it with: mcpkit server login ${r.server}` : ''}`,
});

/**
 * A token typed into server add would sit in the config in plain text (and in its backups and
 * diffs): refused, naming the variable `server import` would have used, unless literal_secrets.
 */
async function refuseLiteralSecrets(name: string, entry: Record<string, unknown>, surface: 'cli' | 'mcp'): Promise<void> {
  const { externalizeSecrets } = await import('../../config/imports/import-secrets.js');
  const found = externalizeSecrets(name, entry).moved.map(({ path, variable }) => ({ path, variable }));
  // An OAuth client secret is one whatever it looks like (clients' configs, which import reads, have none).
  const clientSecret = typeof entry.auth === 'object' ? (entry.auth as { client_secret?: string }).client_secret : undefined;
  if (clientSecret && !clientSecret.includes('${')) found.push({ path: `mcp_servers.${name}.auth.client_secret`, variable: 'CLIENT_SECRET' });
  if (found.length === 0) return;
  const places = found.map((f) => f.path);
  throw new ToolError('INVALID_INPUT', `${places.join(', ')} would keep what looks like a secret in the config file, in plain text.`, {
    details: { paths: places, variables: found.map((f) => f.variable) },
    hint:
      surface === 'mcp'
        ? `An agent's \${VAR} is kept as text, not filled in: ask a person to add the server from a terminal with ${found.map((f) => `\${${f.variable}}`).join(', ')}; or give ${field('literal_secrets')} to store the value as written.`
        : `Write it as a variable and set that in the environment, e.g. ${found.map((f) => `\${${f.variable}}`).join(', ')}; or give ${field('literal_secrets')} to store it as written.`,
  });
}

function toggle(disabled: boolean) {
  const verb = disabled ? 'disable' : 'enable';
  return defineTool({
    name: `server_${verb}`,
    group: 'server',
    command: { id: `server ${verb}`, args: ['name'], examples: [`<%= config.bin %> server ${verb} github`] },
    title: `${disabled ? 'Disable' : 'Enable'} an upstream MCP server`,
    description: disabled ? 'Disable a server: it stays in the config but is not started or served.' : 'Enable a server that was disabled.',
    input: z.strictObject({ name: serverName }),
    annotations: CONFIG_WRITE,
    hostAccess: 'config',
    async run(input, ctx) {
      const { setServerDisabled } = await import('../../config/edits/servers-edit.js');
      const { value: changed, path } = await editConfigFile(ctx, (doc) => setServerDisabled(doc, input.name, disabled));
      return { server: input.name, disabled, changed, config: path };
    },
    render: (r, ui) => `${ui.color.green('✓')} Server ${r.server} ${r.changed ? 'is now' : 'was already'} ${r.disabled ? 'disabled' : 'enabled'}`,
  });
}

export const serverEnable = toggle(false);
export const serverDisable = toggle(true);

export const serverSetTools = defineTool({
  name: 'server_set_tools',
  group: 'server',
  command: {
    id: 'server set-tools',
    args: ['name', 'tools'],
    examples: [
      '<%= config.bin %> server set-tools github search_code search_issues',
      '<%= config.bin %> server set-tools github --all',
      '<%= config.bin %> server set-tools remote-db run_query --force',
    ],
  },
  title: 'Set the tools a server exposes',
  description:
    "Replace the allow-list of tools a server exposes (overrides of tools that stay are kept), or --all to remove the allow-list so every tool passes (the descriptions and names set in it move under overrides:).\nThe names are checked against the server's own tools when it can be reached; an unknown name is refused unless --force.",
  input: z.strictObject({
    name: serverName,
    tools: z.array(z.string().min(1)).optional().describe('Upstream tool names to expose.'),
    all: z.boolean().default(false).describe('Remove the allow-list: expose every tool.'),
    force: z.boolean().default(false).describe('Accept names the server does not offer (or that cannot be checked now).'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    const tools = input.tools ?? [];
    if (input.all === tools.length > 0) {
      throw new ToolError(
        'INVALID_INPUT',
        input.all ? `Give tool names or ${field('all')}, not both.` : `Give the tool names to expose, or ${field('all')} to expose every tool.`,
      );
    }
    const checked =
      input.all || input.force ? { checked: false as const, reason: input.all ? 'all tools' : 'force' } : await checkToolNames(ctx, input.name, tools);
    const { setServerTools } = await import('../../config/edits/servers-edit.js');
    const { value: replaced, path } = await editConfigFile(ctx, (doc) => setServerTools(doc, input.name, input.all ? null : tools));
    return {
      server: input.name,
      tools: input.all ? 'all' : tools,
      replaced: replaced.previous ?? 'all',
      dropped_overrides: replaced.dropped_overrides,
      ...checked,
      config: path,
    };
  },
  render: (r, ui) => {
    const now = r.tools === 'all' ? 'all its tools' : (r.tools as string[]).join(', ');
    const was = r.replaced === 'all' ? 'all its tools' : (r.replaced as string[]).join(', ') || 'none';
    const lines = [`${ui.color.green('✓')} Server ${r.server} exposes ${now} (was: ${was})`];
    if (r.dropped_overrides.length) lines.push(ui.color.yellow(`  Dropped the overrides of ${r.dropped_overrides.join(', ')} with them.`));
    if (!r.checked && r.reason !== 'all tools' && r.reason !== 'force') lines.push(ui.color.yellow(`  Names not checked: ${r.reason}.`));
    return lines.join('\n');
  },
});

export const serverSetDescription = defineTool({
  name: 'server_set_description',
  group: 'server',
  command: {
    id: 'server set-description',
    args: ['name', 'tool', 'text'],
    examples: ['<%= config.bin %> server set-description github search_issues "Search issues in our org. {original}"'],
  },
  title: 'Override a tool description',
  description:
    'Replace the description clients see for one tool of a server; {original} stands for the upstream text.\nWith an allow-list (server set-tools) the tool must be in it; without one the override goes under overrides: and hides no other tool.',
  input: z.strictObject({
    name: serverName,
    tool: z.string().min(1).describe('Upstream tool name.'),
    text: z.string().describe('New description; {original} is replaced by the upstream description.'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    const { setToolDescription } = await import('../../config/edits/servers-edit.js');
    const { value: where, path } = await editConfigFile(ctx, (doc) => setToolDescription(doc, input.name, input.tool, input.text));
    return { server: input.name, tool: input.tool, description: input.text, written_under: `mcp_servers.${input.name}.${where}`, config: path };
  },
  render: (r, ui) => `${ui.color.green('✓')} ${r.server}.${r.tool}: "${r.description}"`,
});

/** The names mcpkit publishes (proxy/catalog/names.ts), which many clients require. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const serverRenameTool = defineTool({
  name: 'server_rename_tool',
  group: 'server',
  command: {
    id: 'server rename-tool',
    args: ['name', 'tool', 'new_name'],
    examples: ['<%= config.bin %> server rename-tool github search_issues find_issues', '<%= config.bin %> server rename-tool github search_issues --reset'],
  },
  title: 'Rename a tool of a server',
  description:
    'Publish one tool of a server under another name (views prefix it as usual; calls still reach the upstream name). With an allow-list the tool must be in it; without one the rename goes under overrides: and hides no other tool. --reset publishes the upstream name again.',
  input: z.strictObject({
    name: serverName,
    tool: z.string().min(1).describe('Upstream tool name.'),
    new_name: z.string().regex(TOOL_NAME, 'a tool name is 1-64 letters, digits, "_" or "-"').optional().describe('The name to publish instead.'),
    reset: z.boolean().default(false).describe('Remove the rename: the upstream name is published again.'),
  }),
  annotations: CONFIG_WRITE,
  hostAccess: 'config',
  async run(input, ctx) {
    if ((input.new_name === undefined) === !input.reset) {
      throw new ToolError('INVALID_INPUT', input.reset ? `Give a new name or ${field('reset')}, not both.` : `Give the new name, or ${field('reset')}.`);
    }
    const { setToolOverride, clearToolOverride } = await import('../../config/edits/servers-edit.js');
    const { path } = await editConfigFile(ctx, (doc) =>
      input.reset ? clearToolOverride(doc, input.name, input.tool, 'name') : setToolOverride(doc, input.name, input.tool, 'name', input.new_name!),
    );
    return { server: input.name, tool: input.tool, published_as: input.new_name ?? input.tool, config: path };
  },
  render: (r, ui) => `${ui.color.green('✓')} ${r.server}.${r.tool} is published as ${r.published_as}`,
});
