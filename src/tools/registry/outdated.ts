import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { registryProvenanceSchema } from '../../config/schema/schema-parts.js';
import { defineTool } from '../../tool/define.js';
import { commandLineFor } from '../../tool/command-line.js';
import { compareVersions, refuseByStatus, statusOf, type RegistryStatus } from '../../registry/status.js';
import { editConfigFile, writtenSection } from '../shared/config-access.js';
import { requirePersonFor, serverCommandLine } from '../shared/approval.js';
import { REGISTRY_READ, registryFor } from './shared.js';
import { completedPlan } from './bundle-plan.js';

interface OutdatedRow {
  server: string;
  registry: string;
  name: string;
  installed: string | null;
  latest: string | null;
  status: string;
  status_message?: string;
  /** What is to be done: "update" (a newer version), "deprecated", "deleted", or "unknown" (the registry could not say). */
  finding: 'update' | 'deprecated' | 'deleted' | 'unknown' | 'current';
  error?: string;
}

export const registryOutdated = defineTool({
  name: 'registry_outdated',
  group: 'registry',
  command: {
    id: 'registry outdated',
    examples: ['<%= config.bin %> registry outdated', '<%= config.bin %> registry outdated --json'],
  },
  title: 'Servers added from a registry that are out of date',
  description:
    'The servers of the config that "registry add" installed (their registry: entry), checked against their registry: a newer version, a status that changed (deprecated, deleted), or a registry that could not be asked. Exits 1 when any is found, as npm outdated does, for CI.',
  input: z.strictObject({}),
  annotations: REGISTRY_READ,
  async run(_input, ctx) {
    // As written: a server set aside for an unset variable came from a registry all the same.
    const { entries } = await writtenSection(ctx, 'mcp_servers');
    const installed = Object.entries(entries).flatMap(([server, entry]) => {
      const from = provenanceOf(entry);
      return from ? [[server, from] as const] : [];
    });
    const rows = await Promise.all(
      installed.map(async ([server, from]): Promise<OutdatedRow> => {
        const base = { server, registry: from.source, name: from.name, installed: from.version ?? null };
        try {
          const { client } = await registryFor(ctx, from.source);
          const latest = await client.getServer(from.name, 'latest', ctx.signal);
          const status = statusOf(latest);
          const version = latest.server.version ?? null;
          return {
            ...base,
            latest: version,
            status: status.status,
            ...(status.message ? { status_message: status.message } : {}),
            finding: findingOf(from.version, version, status),
          };
        } catch (error) {
          return { ...base, latest: null, status: 'unknown', finding: 'unknown', error: (error as Error).message };
        }
      }),
    );
    const flagged = rows.filter((r) => r.finding !== 'current');
    return { checked: rows.length, outdated: flagged.length, servers: rows };
  },
  exitCode: (r) => (r.outdated > 0 ? 1 : 0),
  render: (r, ui) => {
    if (r.checked === 0) return ui.color.dim('No server of the config came from a registry (registry add records where it got one).');
    const color = (row: OutdatedRow) =>
      row.finding === 'current' ? ui.color.green('current') : row.finding === 'update' ? ui.color.yellow('update') : ui.color.red(row.finding);
    const table = ui.table(
      r.servers.map((row) => ({
        server: row.server,
        name: row.name,
        installed: row.installed ?? '?',
        latest: row.latest ?? '?',
        status: row.status,
        finding: color(row),
      })),
      ['server', 'name', 'installed', 'latest', 'status', 'finding'],
    );
    const notes = r.servers.flatMap((row) => [
      ...(row.status_message ? [`${row.server}: ${row.status_message}`] : []),
      ...(row.error ? [ui.color.red(`${row.server}: ${row.error}`)] : []),
    ]);
    const next = r.servers.filter((row) => row.finding === 'update').map((row) => `mcpkit registry update ${row.server}`);
    return [table, ...notes, ...(next.length ? ['', ui.color.dim(`Update with: ${next.join('; ')}`)] : [])].join('\n');
  },
});

/** The registry: entry of a server as written, when it is one (the schema's own shape). */
function provenanceOf(entry: Record<string, unknown>): z.output<typeof registryProvenanceSchema> | undefined {
  const parsed = registryProvenanceSchema.safeParse(entry.registry);
  return parsed.success ? parsed.data : undefined;
}

function findingOf(installed: string | undefined, latest: string | null, status: RegistryStatus): OutdatedRow['finding'] {
  if (status.status === 'deleted') return 'deleted';
  if (status.status === 'deprecated') return 'deprecated';
  if (installed && latest && compareVersions(latest, installed) > 0) return 'update';
  return 'current';
}

export const registryUpdate = defineTool({
  name: 'registry_update',
  group: 'registry',
  command: {
    id: 'registry update',
    args: ['name'],
    examples: ['<%= config.bin %> registry update github', '<%= config.bin %> registry update github --version 1.4.0 --json'],
  },
  title: 'Move a server added from a registry to its newest version',
  description:
    'Rewrite the entry of a server "registry add" installed for the newest version (or --version): its command, arguments or URL change; its env and header values, filters, tool lists and overrides stay. Tool pinning applies: tools whose definitions changed are withheld until approved (mcpkit server diff NAME, then server approve).',
  input: z.strictObject({
    name: z.string().min(1).describe('The server in the config.'),
    version: z.string().min(1).default('latest').describe('The version to move to (default latest).'),
    force: z.boolean().default(false).describe('Move to a version the registry marks deprecated.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  hostAccess: 'config',
  async run(input, ctx) {
    const [{ installation }, { updatedEntry }] = await Promise.all([import('../../registry/install.js'), import('../../registry/update-entry.js')]);
    const { entries } = await writtenSection(ctx, 'mcp_servers');
    const current = entries[input.name];
    if (!current) {
      const { unknownServer } = await import('../../core/suggest.js');
      throw unknownServer(input.name, Object.keys(entries));
    }
    const from = provenanceOf(current);
    if (!from) {
      throw new ToolError(
        'INVALID_INPUT',
        `Server "${input.name}" did not come from a registry (its entry has no registry:), so there is nothing to update it to.`,
        {
          hint: 'Re-add it with mcpkit registry add NAME --force, which records where it came from.',
        },
      );
    }
    const { client, source } = await registryFor(ctx, from.source);
    const entry = await client.getServer(from.name, input.version, ctx.signal);
    refuseByStatus(from.name, statusOf(entry), input.force);
    const server = entry.server as unknown as Parameters<typeof installation>[0];
    const plan = await completedPlan(installation(server, from.package as Parameters<typeof installation>[1]), ctx, server.description);
    const to = server.version ?? input.version;
    if (to === from.version) return { server: input.name, from: from.version ?? null, to, changed: false, config: ctx.configLocation.path };
    const command = serverCommandLine(plan.entry as Parameters<typeof serverCommandLine>[0]);
    if (command) {
      await requirePersonFor(
        ctx,
        { action: `update the server "${input.name}" to ${from.name} ${to}`, commands: [command] },
        commandLineFor(registryUpdate, input),
      );
    }
    const provenance = {
      source: source.name,
      name: from.name,
      ...(server.version ? { version: server.version } : {}),
      package: plan.kind,
    };
    const { path } = await editConfigFile(ctx, (doc) => {
      const written = doc.getIn(['mcp_servers', input.name]) as { toJSON(): Record<string, unknown> } | undefined;
      if (!written) throw new ToolError('NOT_FOUND', `Server "${input.name}" is no longer in the config.`);
      doc.setIn(['mcp_servers', input.name], doc.createNode(updatedEntry(written.toJSON(), plan.entry, provenance)));
    });
    return { server: input.name, from: from.version ?? null, to, changed: true, config: path, notes: plan.notes };
  },
  render: (r, ui) =>
    r.changed
      ? [
          `${ui.color.green('✓')} ${r.server}: ${r.from ?? '?'} -> ${r.to} in ${r.config}`,
          ui.color.dim(`Tools whose definitions changed are withheld until approved: mcpkit server diff ${r.server}`),
        ].join('\n')
      : `${r.server} is at ${r.to} already.`,
});
