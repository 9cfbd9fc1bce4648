import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { commandLineFor } from '../../tool/command-line.js';
import { defineTool } from '../../tool/define.js';
import { type RenderUi } from '../../tool/context.js';
import type { ServerEntry, ServerList } from '../../registry/client.js';
import { readingFields, REGISTRY_READ, registryFor, shown, titleOf, transportsOf } from './shared.js';
import { statusOf } from '../../registry/status.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry's JSON, printed as found: any field may be missing, and each is shown or skipped.
type RegistryRecord = Record<string, any>;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

export const listServersInput = z.strictObject({
  cursor: z.string().min(1).optional().describe('Where to continue: metadata.nextCursor of the previous page.'),
  limit: z.int().min(1).max(100).default(30).describe('Servers per page (1-100).'),
  search: z.string().optional().describe('Only servers whose name or description contains this text (case-insensitive).'),
  updated_since: z.string().optional().describe('Only servers updated after this ISO 8601 time, e.g. 2025-01-01T00:00:00Z.'),
  latest_only: z.boolean().default(true).describe('Only the latest version of each server (sends version=latest).'),
  include_deleted: z.boolean().default(false).describe('Also servers the registry marks deleted (left out by default).'),
  ...readingFields,
});

/** One page, as the API returned it. */
export async function fetchPage(input: z.output<typeof listServersInput>, ctx: Parameters<typeof registryFor>[0]): Promise<ServerList> {
  if (input.updated_since !== undefined && (!ISO_8601.test(input.updated_since) || Number.isNaN(Date.parse(input.updated_since)))) {
    throw new ToolError('INVALID_INPUT', `updated_since must be an ISO 8601 time such as 2025-01-01T00:00:00Z, got "${input.updated_since}".`);
  }
  const { client } = await registryFor(ctx, input.registry);
  const page = await client.listServers(
    {
      cursor: input.cursor,
      limit: input.limit,
      search: input.search,
      updated_since: input.updated_since,
      version: input.latest_only ? 'latest' : undefined,
      ...(input.include_deleted ? { include_deleted: true } : {}),
    },
    ctx.signal,
  );
  // A registry that does not know include_deleted lists them anyway: they are left out here too.
  return input.include_deleted ? page : { ...page, servers: page.servers.filter((e) => statusOf(e).status !== 'deleted') };
}

/** The command for the next page: the same query from the cursor on. */
export function nextPageCommand(input: z.output<typeof listServersInput>, cursor: string): string {
  return commandLineFor(listServers, { ...input, cursor });
}

/** NAME, VERSION, STATUS (deprecated and deleted flagged), TRANSPORTS and what it is: its title where that says more than the name, then its description, cut to fit a line. */
export function serverTable(servers: readonly ServerEntry[], ui: RenderUi): string {
  return ui.table(
    servers.map((e) => ({
      name: e.server.name,
      version: e.server.version ?? '',
      status: statusText(statusOf(e).status, ui),
      transports: transportsOf(e).join(', '),
      description: aboutOf(e),
    })),
    ['name', 'version', 'status', 'transports', 'description'],
  );
}

/** A status as a table shows it: active plain, deprecated and deleted flagged. */
export function statusText(status: string, ui: RenderUi): string {
  if (status === 'deleted') return ui.color.red('deleted');
  if (status === 'deprecated') return ui.color.yellow('deprecated');
  return status;
}

const ABOUT_CHARS = 72;

function aboutOf(entry: ServerEntry): string {
  const title = titleOf(entry);
  const description = typeof entry.server.description === 'string' ? entry.server.description.replace(/\s+/g, ' ').trim() : '';
  const text = [title !== entry.server.name ? title : '', description].filter(Boolean).join(': ');
  return text.length > ABOUT_CHARS ? `${text.slice(0, ABOUT_CHARS - 1)}…` : text;
}

export const listServers = defineTool({
  name: 'list_servers',
  featured: 7,
  group: 'registry',
  command: {
    id: 'registry list',
    examples: [
      '<%= config.bin %> registry list --search github',
      '<%= config.bin %> registry list --limit 100 --all --json',
      '<%= config.bin %> registry list --updated-since 2025-06-01T00:00:00Z --registry pulsemcp',
    ],
  },
  title: 'List MCP servers in a registry',
  description:
    "List the MCP servers of a registry, a page at a time (metadata.nextCursor continues), optionally searched by name or description. Returns the API's JSON with each entry's server and _meta.\nOver MCP long strings and deep objects are shortened; expand_fields shows chosen paths in full. In the terminal, --all follows every page.",
  input: listServersInput,
  annotations: REGISTRY_READ,
  async run(input, ctx) {
    return shown(await fetchPage(input, ctx), input, ctx);
  },
  render: (page, ui, input) => {
    if (page.servers.length === 0) return ui.color.dim('No servers match.');
    const lines = [serverTable(page.servers, ui)];
    const next = page.metadata?.nextCursor;
    if (next) lines.push('', `${ui.color.dim('Next page:')} ${nextPageCommand(input, next)}`);
    return lines.join('\n');
  },
});

export const getServer = defineTool({
  name: 'get_server',
  featured: 8,
  group: 'registry',
  command: {
    id: 'registry get',
    args: ['name'],
    examples: [
      '<%= config.bin %> registry get io.github.21st-dev/magic-mcp',
      '<%= config.bin %> registry get io.github.21st-dev/magic-mcp --version 0.0.46 --json',
    ],
  },
  title: 'Show one MCP server from a registry',
  description: 'Show a registry entry: the server.json (packages, remotes, environment variables) and its _meta, for a version (default latest).',
  input: z.strictObject({
    name: z.string().min(1).describe('Server name as the registry has it, e.g. io.github.owner/repo.'),
    version: z.string().min(1).default('latest').describe('Version to show (default latest).'),
    ...readingFields,
  }),
  annotations: REGISTRY_READ,
  async run(input, ctx) {
    const { client } = await registryFor(ctx, input.registry);
    return shown(await client.getServer(input.name, input.version, ctx.signal), input, ctx);
  },
  render: (entry, ui) => {
    const server = entry.server as RegistryRecord;
    const lines = [ui.color.bold(titleOf(entry)), `${ui.color.dim('ID:')} ${server.name}`, `${ui.color.dim('Version:')} ${server.version ?? '?'}`];
    const status = statusOf(entry);
    if (status.status !== 'active')
      lines.push(
        `${ui.color.dim('Status:')} ${statusText(status.status, ui)}${status.changedAt ? ` since ${status.changedAt}` : ''}${status.message ? `: ${status.message}` : ''}`,
      );
    if (server.description) lines.push(`${ui.color.dim('Description:')} ${server.description}`);
    if (server.repository?.url) lines.push(`${ui.color.dim('Repository:')} ${server.repository.url}`);
    for (const pkg of (server.packages ?? []) as RegistryRecord[]) {
      lines.push(`${ui.color.dim('Package:')} ${pkg.registryType} ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''} (${pkg.transport?.type ?? '?'})`);
      for (const v of (pkg.environmentVariables ?? []) as RegistryRecord[]) {
        const marks = [v.isRequired ? 'required' : '', v.isSecret ? 'secret' : ''].filter(Boolean).join(', ');
        lines.push(`  ${v.name}${marks ? ` (${marks})` : ''}${v.description ? `: ${v.description}` : ''}`);
      }
    }
    for (const remote of (server.remotes ?? []) as RegistryRecord[]) {
      lines.push(`${ui.color.dim('Remote:')} ${remote.type} ${remote.url}`);
      for (const [name, v] of Object.entries((remote.variables ?? {}) as Record<string, RegistryRecord>))
        lines.push(`  {${name}}${v.isRequired ? ' (required)' : ''}${v.description ? `: ${v.description}` : ''}`);
    }
    lines.push('', ui.color.dim(`Add it with: mcpkit registry add ${server.name}`));
    return lines.join('\n');
  },
});

export const listVersions = defineTool({
  name: 'list_versions',
  group: 'registry',
  command: { id: 'registry versions', args: ['name'], examples: ['<%= config.bin %> registry versions io.github.21st-dev/magic-mcp'] },
  title: 'List the versions of an MCP server',
  description: 'List every published version of a registry entry, with its status and dates.',
  input: z.strictObject({
    name: z.string().min(1).describe('Server name as the registry has it.'),
    ...readingFields,
  }),
  annotations: REGISTRY_READ,
  async run(input, ctx) {
    const { client } = await registryFor(ctx, input.registry);
    return shown(await client.listVersions(input.name, ctx.signal), input, ctx);
  },
  render: (list, ui) =>
    ui.table(
      list.servers.map((e) => {
        const meta = (e._meta?.['io.modelcontextprotocol.registry/official'] ?? {}) as Record<string, unknown>;
        return { version: e.server.version ?? '', status: meta.status ?? '', published: meta.publishedAt ?? '', latest: meta.isLatest === true ? 'yes' : '' };
      }),
      ['version', 'status', 'published', 'latest'],
    ),
});
