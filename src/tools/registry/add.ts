import * as z from 'zod';
import { field, ToolError } from '../../core/errors.js';
import { defineTool } from '../../tool/define.js';
import { PACKAGE_KINDS, type DeclaredVariable } from '../../registry/install.js';
import { editConfigFile } from '../shared/config-access.js';
import { boxWords, requirePersonFor, sandboxFor, serverCommandLine, serverConnectionLines } from '../shared/approval.js';
import { literalValues } from '../../config/secrets/interpolate.js';
import { commandLineFor } from '../../tool/command-line.js';
import { registryField, registryFor } from './shared.js';
import { completedPlan } from './bundle-plan.js';
import { refuseByStatus, statusOf } from '../../registry/status.js';
import { whichOn } from '../../proxy/sandbox/host-facts.js';

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
      '<%= config.bin %> registry add com.example/tenant-mcp --var tenant_id=acme',
    ],
  },
  title: 'Add a registry server to the config',
  description:
    'Turn a registry entry into an upstream server in the config: npm packages run with npx, PyPI with uvx, NuGet with dnx (.NET 10), OCI images with docker, remotes by URL, and an MCP bundle (mcpb) is fetched, checked against its fileSha256 and unpacked, then run as its manifest says.\nThe environment variables the package declares, and the {name} variables of a remote URL, are written as ${VAR} references (set them before "mcpkit serve", or give a URL variable with var); the result lists them, marking required and secret ones. The entry records where it came from (registry:), for "registry outdated". A deleted server is refused; a deprecated one needs force.',
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
    var: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*=/, 'a URL variable is given as name=value'))
      .optional()
      .describe('A value for a {name} of a remote URL, as name=value (repeatable); the others become ${VAR} references.'),
    force: z.boolean().default(false).describe('Replace a server of the same name in the config, and install a server the registry marks deprecated.'),
  }),
  createsConfig: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  hostAccess: 'config',
  async run(input, ctx) {
    const [{ client, source }, { installation, localName }, { addServer }] = await Promise.all([
      registryFor(ctx, input.registry),
      import('../../registry/install.js'),
      import('../../config/edits/servers-edit.js'),
    ]);
    const entry = await client.getServer(input.name, input.version, ctx.signal);
    const server = entry.server as unknown as Parameters<typeof installation>[0];
    refuseByStatus(server.name, statusOf(entry), input.force);
    const urlValues = Object.fromEntries((input.var ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
    const planned = installation(server, input.package as Parameters<typeof installation>[1], urlValues);
    const local = input.as ?? localName(server.name);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(local) || local.includes('__')) {
      throw new ToolError('INVALID_INPUT', `"${local}" cannot name a server in the config: use letters, digits, "_", "-" and "." (not "__")`, {
        hint: `Choose a name with ${field('as')}.`,
      });
    }
    const what = `install ${server.name}${server.version ? ` ${server.version}` : ''} from the registry as the server "${local}"`;
    // A package runs through npx, uvx or docker, which download: a box keeps the network.
    const sandbox = 'command' in planned.entry || planned.bundle ? await sandboxFor(ctx, input.sandbox, { network: true }) : undefined;
    // A bundle is code: an agent's is neither downloaded nor unpacked before a person says yes.
    if (planned.bundle) {
      await requirePersonFor(
        ctx,
        {
          action: `${what}: download the bundle ${planned.bundle.url} (SHA-256 ${planned.bundle.sha256 ?? 'not given'}), unpack it, and run the server its manifest names, ${boxWords(sandbox)}`,
          commands: [`the command in the bundle's manifest.json (${planned.bundle.url})`],
        },
        commandLineFor(registryAdd, input),
      );
    }
    const plan = await completedPlan(planned, ctx, server.description);
    const boxed = sandbox !== undefined ? { ...plan.entry, sandbox } : plan.entry;
    // What the registry says of itself is data too (config/secrets/interpolate.ts literalValues).
    const provenance = literalValues({
      source: source.name,
      name: server.name,
      ...(server.version ? { version: server.version } : {}),
      package: plan.kind,
      ...(plan.sha256 ? { sha256: plan.sha256 } : {}),
    });
    const recorded = { ...boxed, registry: provenance };
    const written = ctx.surface === 'mcp' ? { ...recorded, added_by: 'agent' } : recorded;
    const command = serverCommandLine(plan.entry as Parameters<typeof serverCommandLine>[0]);
    const connects = serverConnectionLines(plan.entry as Parameters<typeof serverConnectionLines>[0]);
    if (!planned.bundle && (command || connects)) {
      await requirePersonFor(
        ctx,
        command ? { action: `${what}, to run ${boxWords(sandbox)}`, commands: [command] } : { action: what, commands: [], connects: connects! },
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
      notes: [...plan.notes, ...(plan.kind === 'nuget' && !whichOn(ctx.env.PATH, 'dnx') ? [DNX_MISSING] : [])],
      status: statusOf(entry),
      post_install: plan.postInstall ?? [],
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
        const into = v.header ? ` -> header ${v.header}` : v.urlVariable ? ` -> {${v.urlVariable}} of the URL` : '';
        lines.push(`  ${v.name} (${marks})${into}${v.description ? `: ${v.description}` : ''}`);
      }
    }
    for (const note of r.notes) lines.push(ui.color.yellow(`Note: ${note}`));
    if (r.status.status !== 'active')
      lines.push(ui.color.yellow(`The registry marks it ${r.status.status}${r.status.message ? `: ${r.status.message}` : '.'}`));
    if (r.post_install.length) lines.push('', 'After installing, the package says (shown, not run):', ...r.post_install.map((l: string) => `  ${l}`));
    lines.push('', ui.color.dim(`Check it with: mcpkit server test ${r.server}`));
    return lines.join('\n');
  },
});

const DNX_MISSING = 'dnx, the .NET 10 tool runner, is not on the PATH: install the .NET 10 SDK (https://dot.net) before "mcpkit serve" starts this server.';
