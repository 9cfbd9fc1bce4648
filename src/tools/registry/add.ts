import * as z from 'zod';
import { field, ToolError } from '../../core/errors.js';
import { defineTool } from '../../tool/define.js';
import { PACKAGE_KINDS, type DeclaredVariable } from '../../registry/install.js';
import { editConfigFile } from '../shared/config-access.js';
import { boxWords, requirePersonFor, sandboxFor, serverCommandLine } from '../shared/approval.js';
import { commandLineFor } from '../../tool/command-line.js';
import { registryField, registryFor } from './shared.js';

export const registryAdd = defineTool({
  name: 'registry_add',
  group: 'registry',
  command: {
    id: 'registry add',
    args: ['name'],
    examples: [
      '<%= config.bin %> registry add io.github.21st-dev/magic-mcp',
      '<%= config.bin %> registry add io.github.21st-dev/magic-mcp --as magic --version 0.0.46',
      '<%= config.bin %> registry add io.github.owner/server --package pypi --force --json',
    ],
  },
  title: 'Add a registry server to the config',
  description:
    'Turn a registry entry into an upstream server in the config: npm packages run with npx, PyPI with uvx, OCI images with docker, remotes by URL.\nThe environment variables the package declares are written as ${VAR} references (set them before "mcpkit serve"); the result lists them, marking required and secret ones.',
  input: z.strictObject({
    name: z.string().min(1).describe('Server name in the registry, e.g. io.github.owner/repo.'),
    as: z.string().min(1).optional().describe('Name in the config (default: the last part of the registry name).'),
    version: z.string().min(1).default('latest').describe('Version to install (default latest).'),
    package: z
      .enum(PACKAGE_KINDS as unknown as [string, ...string[]])
      .optional()
      .describe('Which package or remote to use (default: npm, then pypi, oci, remote).'),
    registry: registryField,
    sandbox: z
      .boolean()
      .optional()
      .describe(
        'Run the package in a box (bubblewrap) with the network and a download cache of its own (default: so when an agent installs, not from a terminal).',
      ),
    force: z.boolean().default(false).describe('Replace a server of the same name in the config.'),
  }),
  createsConfig: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  hostAccess: 'config',
  async run(input, ctx) {
    const [{ client, source }, { installation, localName }, { addServer }] = await Promise.all([
      registryFor(ctx, input.registry),
      import('../../registry/install.js'),
      import('../../config/servers-edit.js'),
    ]);
    const entry = await client.getServer(input.name, input.version, ctx.signal);
    const server = entry.server as unknown as Parameters<typeof installation>[0];
    const plan = installation(server, input.package as Parameters<typeof installation>[1]);
    const local = input.as ?? localName(server.name);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(local)) {
      throw new ToolError('INVALID_INPUT', `"${local}" cannot name a server in the config: use letters, digits, "_", "-" and "."`, {
        hint: `Choose a name with ${field('as')}.`,
      });
    }
    const isCommand = 'command' in plan.entry;
    // A package runs through npx, uvx or docker, which download: a box keeps the network.
    const sandbox = isCommand ? await sandboxFor(ctx, input.sandbox, { network: true }) : undefined;
    const boxed = sandbox !== undefined ? { ...plan.entry, sandbox } : plan.entry;
    const written = ctx.surface === 'mcp' ? { ...boxed, added_by: 'agent' } : boxed;
    const command = serverCommandLine(plan.entry as Parameters<typeof serverCommandLine>[0]);
    if (command) {
      await requirePersonFor(
        ctx,
        {
          action: `install ${server.name}${server.version ? ` ${server.version}` : ''} from the registry as the server "${local}", to run ${boxWords(sandbox)}`,
          commands: [command],
        },
        commandLineFor(registryAdd, input),
      );
    }
    const { value, path } = await editConfigFile(ctx, (doc) => addServer(doc, local, written, { force: input.force }));
    return {
      server: local,
      replaced: value.replaced,
      config: path,
      source: { registry: source.name, name: server.name, version: server.version ?? null, package: plan.kind },
      entry: plan.entry,
      variables: plan.variables,
      notes: plan.notes,
    };
  },
  render: (r, ui) => {
    const lines = [
      `${ui.color.green('✓')} ${r.replaced ? 'Replaced' : 'Added'} server ${r.server} (${r.source.name} ${r.source.version ?? ''}, ${r.source.package}) in ${r.config}`,
    ];
    const variables = r.variables as DeclaredVariable[];
    if (variables.length) {
      lines.push('', 'It reads these environment variables; set them before "mcpkit serve":');
      for (const v of variables) {
        const marks = [v.required ? 'required' : 'optional', v.secret ? 'secret' : ''].filter(Boolean).join(', ');
        lines.push(`  ${v.name} (${marks})${v.header ? ` -> header ${v.header}` : ''}${v.description ? `: ${v.description}` : ''}`);
      }
    }
    for (const note of r.notes) lines.push(ui.color.yellow(`Note: ${note}`));
    lines.push('', ui.color.dim(`Check it with: mcpkit server test ${r.server}`));
    return lines.join('\n');
  },
});
