import * as z from 'zod';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ToolError } from '../../core/errors.js';
import { literalValues } from '../../config/secrets/interpolate.js';
import { unknownServer } from '../../core/suggest.js';
import { CONFIG_WRITE, defineTool, summaryOf } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import { DEFAULT_PIN_MODE, type PinMode } from '../../config/schema/defaults.js';
import type { Listing } from '../../proxy/pins/pins.js';
import type { ChalkInstance } from 'chalk';
import { editConfigFile, writtenSection } from '../shared/config-access.js';
import { boxWords, requirePersonFor, sandboxFor, serverCommandLine, serverConnectionLines } from '../shared/approval.js';
import { commandLineFor } from '../../tool/command-line.js';

export const serverTest = defineTool({
  name: 'server_test',
  warm: true,
  group: 'server',
  command: { id: 'server test', args: ['name'], examples: ['<%= config.bin %> server test everything', '<%= config.bin %> server test github --json'] },
  title: 'Test an upstream MCP server',
  description:
    "Start or reach one server from the config, list its tools, prompts and resources, and report how long that took; a failure shows the server's last stderr lines.",
  input: z.strictObject({ name: z.string().min(1).describe('Name of the server in mcp_servers.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  hostAccess: 'processes',
  async run(input, ctx) {
    const config = await ctx.config();
    const server = config.mcp_servers[input.name];
    if (!server) throw unknownServer(input.name, Object.keys(config.mcp_servers));
    const { requireUsable } = await import('../../config/check/problems.js');
    requireUsable(config, `mcp_servers.${input.name}`);
    const command = server.added_by === 'agent' ? serverCommandLine(server) : undefined;
    // A remote server an agent added is shown as written (its variables named, never their values).
    const connects =
      server.added_by === 'agent' && server.url !== undefined
        ? serverConnectionLines((await writtenSection(ctx, 'mcp_servers')).entries[input.name] ?? {})
        : undefined;
    if (command || connects) {
      await requirePersonFor(
        ctx,
        command
          ? { action: `start the server "${input.name}", which an agent added, to test it`, commands: [command] }
          : { action: `reach the server "${input.name}", which an agent added, to test it`, commands: [], connects: connects! },
        `mcpkit server test ${input.name}`,
      );
    }
    return ctx.servers.with(input.name, server, async (upstream) => {
      const started = performance.now();
      const tools = await upstream.listTools();
      const connectMs = Math.round(performance.now() - started);
      // A listing that fails is not an empty one: it is neither counted nor pinned.
      const [listedPrompts, listedResources, { shapeServerTools }] = await Promise.all([
        upstream.listPrompts().catch(() => undefined),
        upstream.listResources().catch(() => undefined),
        import('../../proxy/catalog/shape.js'),
      ]);
      const [prompts, resources] = [listedPrompts ?? [], listedResources ?? []];
      // What the config lets through (its filter rules and tools allow-list), as mcpkit publishes it.
      const published = shapeServerTools(tools, server).map((s) => s.tool);
      const listing = { tools, ...(listedPrompts ? { prompts: listedPrompts } : {}), ...(listedResources ? { resources: listedResources } : {}) };
      const pinning = await pinStatus(ctx, input.name, server.pinning ?? config.pinning ?? DEFAULT_PIN_MODE, listing, server.added_by !== 'agent');
      return {
        server: input.name,
        ok: true,
        protocol: upstream.protocolVersion() ?? 'unknown',
        disabled: server.disabled === true,
        connect_and_list_ms: connectMs,
        tools: published.map((t) => ({ name: t.name, description: summaryOf(t) })),
        hidden: tools.length - published.length,
        prompts: prompts.length,
        resources: resources.length,
        pinning,
      };
    });
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} ${r.server} (MCP ${r.protocol}): ${r.tools.length} tools, ${r.prompts} prompts, ${r.resources} resources in ${r.connect_and_list_ms} ms${r.disabled ? ui.color.yellow(' (disabled in the config)') : ''}${r.hidden ? ui.color.dim(`; ${r.hidden} more hidden by its filter or tools list (mcpkit filter test ${r.server} shows why)`) : ''}\n${ui.table(r.tools)}${pinningLine(r.server, r.pinning, ui.color)}`,
});

/**
 * How the server's tools compare with their pins (tool pinning). A server with none is pinned
 * now, on first use (a person ran the test and sees the list), an empty list too; not one an agent
 * added, whose tools wait for "server diff" and "server approve". Under `off` nothing is compared.
 */
async function pinStatus(ctx: ToolContext, name: string, mode: PinMode, listing: Listing, mayTrustFirstUse: boolean) {
  if (mode === 'off') return { mode, status: 'off' as const };
  const [{ pinFilePath, readPins, updatePins, sectionOf }, { comparePins, pinOfItem, keyOf }] = await Promise.all([
    import('../../config/files/pin-file.js'),
    import('../../proxy/pins/pins.js'),
  ]);
  const tools = listing.tools;
  const file = pinFilePath(ctx.configLocation.path);
  const pins = readPins(file).servers[name];
  if (!pins) {
    let pinnedNow = false;
    if (!mayTrustFirstUse) return { mode, status: 'awaiting approval' as const, file };
    await updatePins(file, (all) => {
      if (all.servers[name]) return false;
      // Each kind listed, and not pinned yet, is pinned as it is now (serve does the same on first use).
      for (const kind of ['tools', 'prompts', 'resources'] as const) {
        const items = listing[kind];
        const section = sectionOf(all, kind);
        if (items && !section[name]) section[name] = Object.fromEntries(items.map((item) => [keyOf(kind, item), pinOfItem(kind, item)]));
      }
      // Listed offering no client capabilities (a one-off connection).
      (all.capability_sets ??= {})[name] ??= [''];
      return (pinnedNow = true);
    });
    const [{ scanListing }, { alarming }] = await Promise.all([import('./scan.js'), import('../../proxy/pins/scan.js')]);
    const findings = pinnedNow ? alarming(await scanListing(ctx, name, listing)) : [];
    return { mode, status: pinnedNow ? ('pinned now' as const) : ('not pinned' as const), file, findings };
  }
  const compared = comparePins(pins, tools);
  const differs = compared.added.length + compared.changed.length + compared.removed.length > 0;
  return {
    mode,
    status: differs ? ('differs' as const) : ('approved' as const),
    file,
    added: compared.added,
    changed: compared.changed,
    removed: compared.removed,
  };
}

function pinningLine(server: string, p: Awaited<ReturnType<typeof pinStatus>>, color: ChalkInstance): string {
  if (p.status === 'pinned now') {
    const alarm = p.findings.length
      ? `\n${color.red(`! what was just pinned reads as an attack on the model (${[...new Set(p.findings.map((f) => `${f.tool}: ${f.name}`))].join(', ')}). Review: mcpkit server scan ${server}; remove: mcpkit server remove ${server}`)}`
      : '';
    return `\n${color.dim(`Pinned these tools on first use in ${p.file}; a tool that changes is withheld until approved.`)}${alarm}`;
  }
  if (p.status === 'awaiting approval') {
    return `\n${color.yellow(`! an agent added this server: its tools are withheld until a person approves them. Review: mcpkit server diff ${server}; approve: mcpkit server approve ${server} --digest DIGEST`)}`;
  }
  if (p.status !== 'differs') return '';
  const parts = [`${p.added.length} new`, `${p.changed.length} changed`, `${p.removed.length} removed`].join(', ');
  const effect = p.mode === 'enforce' ? 'serve withholds the new and changed ones' : 'served with a warning (pinning: warn)';
  return `\n${color.yellow(`! tools differ from the approved ones (${parts}): ${effect}. Review: mcpkit server diff ${server}; approve what it shows: mcpkit server approve ${server} --digest DIGEST`)}`;
}

/**
 * The servers a client's config file names, in mcpkit's words: the client's own variables
 * translated (${env:HOME}, ${input:id}, ${workspaceFolder}), and over MCP every value kept as
 * data (an agent named the file, and may have written it).
 */
async function serversInClientConfig(path: string, ctx: ToolContext) {
  let document: unknown;
  try {
    document = await readClientConfig(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A parse error's own message quotes the start of the file: whatever file was named (/etc/shadow
    // over MCP), its content is never echoed.
    const why = error instanceof SyntaxError ? 'it is not valid JSON (or JSON with comments)' : (error as Error).message;
    throw new ToolError(code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_INPUT', `Cannot read ${path}: ${why}.`, {
      hint: "Give the path of a client's JSON config (claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, .mcp.json).",
    });
  }
  const [{ importServers }, variables, { homedir }, scripts] = await Promise.all([
    import('../../config/imports/import-servers.js'),
    import('../../config/imports/client-variables.js'),
    import('node:os'),
    import('../../config/imports/script-folder.js'),
  ]);
  let found: ReturnType<typeof importServers>;
  try {
    found = importServers(document, { project: ctx.cwd });
  } catch (error) {
    throw new ToolError('INVALID_INPUT', `${path}: ${(error as Error).message}.`);
  }
  const flavour = variables.flavourOf(path, found.format);
  const inputs = new Map(
    ((document as { inputs?: { id?: unknown; description?: unknown }[] }).inputs ?? []).flatMap((i) =>
      typeof i?.id === 'string' ? [[i.id, typeof i.description === 'string' ? i.description : '']] : [],
    ) as [string, string][],
  );
  const translation = { flavour, workspaceFolder: variables.workspaceOf(path, ctx.cwd), home: ctx.env.HOME ?? homedir(), inputs };
  const { asked, ...translated } = variables.translateServers(found, translation);
  const scriptFolder = scripts.scriptFolderOf(path, flavour, translation.workspaceFolder);
  translated.servers = translated.servers.map((s) => ({ ...s, entry: scripts.keepScriptFolder(s.entry, scriptFolder) }));
  // Over MCP no placeholder in it is filled in from mcpkit's environment.
  found = ctx.surface === 'mcp' ? { ...translated, servers: translated.servers.map((s) => ({ ...s, entry: literalValues(s.entry) })) } : translated;
  return { found, flavour, asked };
}

export const serverImport = defineTool({
  name: 'server_import',
  group: 'server',
  command: {
    id: 'server import',
    args: ['file'],
    examples: [
      '<%= config.bin %> server import ~/.config/Claude/claude_desktop_config.json',
      '<%= config.bin %> server import .vscode/mcp.json --force',
      '<%= config.bin %> server import ~/.cursor/mcp.json --dry-run --json',
    ],
  },
  title: 'Import servers from another client',
  description:
    'Add the MCP servers of a Claude Desktop, Claude Code (.mcp.json, ~/.claude.json) or Cursor config ("mcpServers") or a VS Code mcp.json / settings.json ("servers", "mcp.servers") to the config, and report what was added and skipped. Comments and trailing commas are allowed, and each client\'s variables become mcpkit\'s (${env:NAME} and ${input:ID} become ${NAME}, ${workspaceFolder} the project folder); a server using one only its client can fill in is skipped. Existing names are skipped unless --force.\nLiteral secrets (env values under secret-looking names or that look like tokens, bearer tokens in headers, --api-key=... arguments) become ${VAR} references, and the variables to set are named; --keep-secrets copies them as they are.',
  input: z.strictObject({
    file: z.string().min(1).describe('Path of the JSON file to read.'),
    force: z.boolean().default(false).describe('Replace servers whose names already exist.'),
    dry_run: z.boolean().default(false).describe('Report what would change without writing.'),
    keep_secrets: z.boolean().default(false).describe('Copy literal secrets into the config as they are (default: they become ${VAR} references).'),
    sandbox: z
      .boolean()
      .optional()
      .describe('Run the imported stdio servers in a box (bubblewrap) with the network (default: so when an agent imports, not from a terminal).'),
  }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const path = resolve(ctx.cwd, input.file);
    const { found, flavour, asked } = await serversInClientConfig(path, ctx);
    const [{ addServer }, { externalizeSecrets }] = await Promise.all([
      import('../../config/edits/servers-edit.js'),
      import('../../config/imports/import-secrets.js'),
    ]);
    // A client's config names commands from anywhere: a box with the network, as sandboxFor says.
    const sandbox = await sandboxFor(ctx, input.sandbox, { network: true });
    const apply = (doc: import('yaml').Document) => {
      const added: string[] = [];
      const replaced: string[] = [];
      const skipped = [...found.skipped];
      // A secret moved out of an agent's file never takes the name of a variable mcpkit has with another value.
      const taken = new Map<string, string>(ctx.surface === 'mcp' ? Object.entries(ctx.env).filter((e): e is [string, string] => e[1] !== undefined) : []);
      const variables: { variable: string; path: string; set: boolean }[] = [];
      for (const { name, entry } of found.servers) {
        if (doc.hasIn(['mcp_servers', name]) && !input.force) {
          skipped.push({ name, reason: 'a server of this name exists (use --force to replace it)' });
          continue;
        }
        const boxed = 'command' in entry && sandbox !== undefined ? { ...entry, sandbox } : entry;
        const marked = ctx.surface === 'mcp' ? { ...boxed, added_by: 'agent' } : boxed;
        const safe = input.keep_secrets ? { entry: marked, moved: [] } : externalizeSecrets(name, marked, taken);
        // Only whether the variable is set already, with that value: the value itself is never shown.
        for (const m of safe.moved) variables.push({ variable: m.variable, path: m.path, set: ctx.env[m.variable] === m.value });
        (addServer(doc, name, safe.entry, { force: true }).replaced ? replaced : added).push(name);
      }
      return { added, replaced, skipped, secrets_moved_to: variables };
    };
    const about = { file: path, format: found.format, client: flavour, inputs_to_set: asked };
    if (input.dry_run) {
      // yaml is CommonJS: reach it through a bundled module (a bare dynamic import of it has no named exports).
      const { parseYaml } = await import('../../config/check/yaml-data.js');
      const text = await readFile(ctx.configLocation.path, 'utf8').catch(() => '');
      return { ...about, dry_run: true, config: ctx.configLocation.path, ...apply(parseYaml(text).doc) };
    }
    const commands = found.servers.flatMap(({ entry }) => serverCommandLine(entry as Parameters<typeof serverCommandLine>[0]) ?? []);
    const connects = found.servers.flatMap(({ entry }) => serverConnectionLines(entry as Parameters<typeof serverConnectionLines>[0]) ?? []);
    if (commands.length || connects.length) {
      await requirePersonFor(
        ctx,
        {
          action: `import ${found.servers.length} server(s) from ${path}${commands.length ? `, to run ${boxWords(sandbox)}` : ''}`,
          commands,
          ...(connects.length ? { connects } : {}),
        },
        commandLineFor(serverImport, input),
      );
    }
    const { value, path: config } = await editConfigFile(ctx, apply);
    return { ...about, dry_run: false, config, ...value };
  },
  render: (r, ui) => {
    const unset = r.secrets_moved_to.filter((v) => !v.set);
    return [
      `${r.dry_run ? 'Would add' : 'Added'}: ${r.added.join(', ') || '(none)'}`,
      ...(r.replaced.length ? [`${r.dry_run ? 'Would replace' : 'Replaced'}: ${r.replaced.join(', ')}`] : []),
      ...r.skipped.map((s) => ui.color.yellow(`Skipped ${s.name}: ${s.reason}`)),
      ...(r.secrets_moved_to.length
        ? [
            `Secrets ${r.dry_run ? 'would be' : 'were'} written as \${VAR} references, not copied:`,
            ...r.secrets_moved_to.map((v) => `  ${v.variable}  (${v.path})${v.set ? ' is set' : ''}`),
            ...(unset.length
              ? [ui.color.yellow(`Set ${unset.map((v) => v.variable).join(', ')} in the environment of mcpkit (the values are in the file you imported).`)]
              : []),
          ]
        : []),
      ...(r.inputs_to_set.length
        ? [
            ui.color.yellow(
              `Set ${r.inputs_to_set.map((a) => a.variable).join(', ')} in the environment of mcpkit: VS Code asked for them (${r.inputs_to_set.map((a) => `\${input:${a.input}}${a.description ? `, "${a.description}"` : ''}`).join('; ')}).`,
            ),
          ]
        : []),
    ].join('\n');
  },
});

/** A client's config: JSON, or JSON with comments and trailing commas as VS Code and Cursor allow (jsonc-parser, VS Code's own). */
async function readClientConfig(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  // The ES module build: its UMD main requires files by paths a bundle does not keep.
  const { parse } = await import('jsonc-parser/lib/esm/main.js');
  const errors: import('jsonc-parser/lib/esm/main.js').ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || value === undefined) throw new SyntaxError('not JSON');
  return value;
}
