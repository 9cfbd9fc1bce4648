import * as z from 'zod';
import type { Tool } from '@modelcontextprotocol/server';
import { ToolError } from '../../core/errors.js';
import { closestNames, unknownServer } from '../../core/suggest.js';
import { defineTool } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import { findingLine, scanListing } from './scan.js';

/**
 * Tool pinning from the terminal: `server diff` shows what changed since approval, `server
 * approve` records what a person reviewed. Neither is offered to MCP clients: an agent must not
 * approve the tools it is given, nor read the text they were withheld for.
 */

const TERMINAL_ONLY = (what: string) =>
  new ToolError('FORBIDDEN', `${what} is for a person at a terminal, not for an MCP client: approving its own tools would defeat tool pinning.`, {
    hint: 'Run it in a terminal: mcpkit server diff NAME, then mcpkit server approve NAME.',
  });

/** The server's tools as it lists them now (its own definitions), and the lock file of the config. */
async function listedNow(ctx: ToolContext, name: string): Promise<{ tools: Tool[]; file: string }> {
  const [config, { requireUsable }, { pinFilePath }] = await Promise.all([
    ctx.config(),
    import('../../config/problems.js'),
    import('../../config/pin-file.js'),
  ]);
  const server = config.mcp_servers[name];
  if (!server) throw unknownServer(name, Object.keys(config.mcp_servers));
  requireUsable(config, `mcp_servers.${name}`);
  const tools = await ctx.servers.with(name, server, (upstream) => upstream.listTools());
  return { tools, file: pinFilePath(ctx.configLocation.path) };
}

export const serverDiff = defineTool({
  name: 'server_diff',
  group: 'server',
  command: {
    id: 'server diff',
    args: ['name'],
    examples: ['<%= config.bin %> server diff github', '<%= config.bin %> server diff github --json || echo "tools changed since approval"'],
  },
  title: "Compare a server's tools with the approved ones",
  description:
    'Connect to a server and compare its tools with the definitions approved in the lock file beside the config (tool pinning): tools added, removed and changed, with a diff of each change (invisible characters shown as \\u{...}). Exits 1 when anything differs, so CI can gate on it; approve with "mcpkit server approve NAME".',
  input: z.strictObject({ name: z.string().min(1).describe('Name of the server in mcp_servers.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  hostAccess: 'processes',
  available: () => false,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw TERMINAL_ONLY('server diff');
    const { tools, file } = await listedNow(ctx, input.name);
    const [{ readPins }, { comparePins, pinOf, invisibleInDefinition, reviewDigest, tamperedPins, DIGEST_MIN_LENGTH }, { definitionDiff }] = await Promise.all([
      import('../../config/pin-file.js'),
      import('../../proxy/pins.js'),
      import('../../proxy/pin-review.js'),
    ]);
    const pins = readPins(file).servers[input.name];
    const compared = comparePins(pins ?? {}, tools);
    const tampered = tamperedPins(pins ?? {}, tools);
    const digest = reviewDigest(input.name, tools);
    const findings = await scanListing(ctx, input.name, tools);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const invisible = tools.flatMap((t) => {
      const chars = invisibleInDefinition(pinOf(t).definition);
      return chars.length ? [{ tool: t.name, characters: chars }] : [];
    });
    return {
      server: input.name,
      file,
      pinned: pins !== undefined,
      differs: compared.added.length + compared.removed.length + compared.changed.length + tampered.length > 0,
      /** The digest of the listing shown: `server approve NAME --digest` records it only while the server still lists exactly this. */
      digest,
      digest_short: digest.slice(0, DIGEST_MIN_LENGTH),
      added: compared.added.map((name) => ({ name, diff: definitionDiff(undefined, pinOf(byName.get(name)!).definition) })),
      removed: compared.removed.map((name) => ({ name, diff: definitionDiff(pins![name]!.definition, undefined) })),
      changed: compared.changed.map((name) => ({ name, diff: definitionDiff(pins![name]!.definition, pinOf(byName.get(name)!).definition) })),
      unchanged: compared.unchanged.length,
      tampered,
      invisible,
      /** What the scanner (server scan) finds in the definitions shown. */
      findings,
    };
  },
  exitCode: (r) => (r.differs ? 1 : 0),
  render: (r, ui) => {
    const paint = (line: string) => (line.startsWith('+ ') ? ui.color.green(line) : line.startsWith('- ') ? ui.color.red(line) : ui.color.dim(line));
    const section = (title: string, items: { name: string; diff: string[] }[]) =>
      items.flatMap((item) => [ui.color.bold(`${title} ${item.name}`), ...item.diff.map(paint), '']);
    const head = !r.pinned
      ? `Server ${r.server} has no approved tools yet (${r.file}).`
      : r.differs
        ? `Server ${r.server} differs from its approved tools (${r.file}): ${r.added.length} added, ${r.removed.length} removed, ${r.changed.length} changed, ${r.unchanged} unchanged${r.tampered.length ? `, ${r.tampered.length} with a pin that does not match its hash` : ''}.`
        : `${ui.color.green('✓')} Server ${r.server} matches its ${r.unchanged} approved tools (${r.file}).`;
    const tampered = r.tampered.map((t) =>
      ui.color.red(
        `! the pin of ${t.tool} in ${r.file} does not match its own sha256${t.fields.length ? ` (edited: ${t.fields.join(', ')})` : ''}: it approves nothing. Restore the file from version control, or review and approve again.`,
      ),
    );
    return [
      head,
      '',
      ...section('added', r.added),
      ...section('removed', r.removed),
      ...section('changed', r.changed),
      ...tampered,
      ...(r.findings.length ? [ui.color.bold(`scan: ${r.findings.length} finding(s)`), ...r.findings.map((f) => ui.color.yellow(findingLine(f)))] : []),
      ...r.invisible.map((i) => ui.color.yellow(`! ${i.tool} has invisible characters: ${i.characters.join(', ')}`)),
      ...(r.differs || !r.pinned
        ? [`Digest of what was shown: ${r.digest_short}. Approve exactly this with: mcpkit server approve ${r.server} --digest ${r.digest_short}`]
        : []),
    ]
      .join('\n')
      .trimEnd();
  },
});

export const serverApprove = defineTool({
  name: 'server_approve',
  group: 'server',
  command: {
    id: 'server approve',
    args: ['name'],
    examples: [
      '<%= config.bin %> server diff github   # prints the digest of what it shows',
      '<%= config.bin %> server approve github --digest 3f2a9c1b7e4d5a60',
      '<%= config.bin %> server approve github --digest 3f2a9c1b7e4d5a60 --tool create_issue --tool search_issues',
    ],
  },
  title: "Approve a server's tools as reviewed",
  description:
    'Record the tool definitions a person reviewed with "mcpkit server diff NAME" (all, or the named ones) in the lock file beside the config, so that serve serves them (tool pinning). --digest is the digest server diff printed: the server\'s tools are listed again and recorded only if they are still exactly what was shown; otherwise nothing is recorded. Refuses definitions with invisible characters unless --force.',
  input: z.strictObject({
    name: z.string().min(1).describe('Name of the server in mcp_servers.'),
    digest: z
      .string()
      .optional()
      .describe('The digest "mcpkit server diff NAME" printed for what it showed (16 hex digits or more): only that listing is recorded.'),
    tool: z
      .array(z.string().min(1))
      .optional()
      .describe("Approve only these tools (the server's own names); repeatable. Default: every tool, and forget removed ones."),
    force: z
      .boolean()
      .default(false)
      .describe('Approve definitions with invisible characters or high-severity scan findings too (after reviewing them in server diff).'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  hostAccess: 'processes',
  available: () => false,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw TERMINAL_ONLY('server approve');
    const [{ updatePins }, { comparePins, pinOf, invisibleInDefinition, reviewDigest, DIGEST_MIN_LENGTH }] = await Promise.all([
      import('../../config/pin-file.js'),
      import('../../proxy/pins.js'),
    ]);
    const given = input.digest?.trim().toLowerCase();
    if (given === undefined) {
      throw new ToolError('INVALID_INPUT', `server approve records only what a person reviewed, and no review was named: give --digest.`, {
        details: { server: input.name },
        hint: `Review with "mcpkit server diff ${input.name}"; it prints a digest of what it showed. Then: mcpkit server approve ${input.name} --digest DIGEST`,
      });
    }
    if (!new RegExp(`^[0-9a-f]{${DIGEST_MIN_LENGTH},64}$`).test(given)) {
      throw new ToolError(
        'INVALID_INPUT',
        `--digest "${input.digest}" is not a digest: give the ${DIGEST_MIN_LENGTH} or more hex digits "mcpkit server diff ${input.name}" printed.`,
        {
          details: { server: input.name, digest: input.digest },
        },
      );
    }
    const { tools, file } = await listedNow(ctx, input.name);
    if (!reviewDigest(input.name, tools).startsWith(given)) {
      throw new ToolError(
        'CONFLICT',
        `Nothing approved: the tools of server "${input.name}" are not what the review with digest ${given.slice(0, DIGEST_MIN_LENGTH)} showed (they changed since, or the digest is of another server's review).`,
        {
          details: { server: input.name, digest: given },
          hint: `Review again with "mcpkit server diff ${input.name}", then approve with the digest it prints.`,
        },
      );
    }
    const names = tools.map((t) => t.name);
    for (const wanted of input.tool ?? []) {
      if (!names.includes(wanted)) {
        const similar = closestNames(wanted, names);
        throw new ToolError('NOT_FOUND', `Server "${input.name}" lists no tool "${wanted}".${similar.length ? ` Did you mean ${similar.join(', ')}?` : ''}`, {
          details: { server: input.name, tool: wanted, similar },
          hint: `"mcpkit server diff ${input.name}" shows its tools.`,
        });
      }
    }
    const chosen = input.tool ? tools.filter((t) => input.tool!.includes(t.name)) : tools;
    const hidden = chosen.flatMap((t) => {
      const chars = invisibleInDefinition(pinOf(t).definition);
      return chars.length ? [`${t.name} (${chars.join(', ')})`] : [];
    });
    if (hidden.length && !input.force) {
      throw new ToolError(
        'FORBIDDEN',
        `Not approved: invisible characters in the definition of ${hidden.join('; ')}. A model reads them; a person does not see them.`,
        {
          details: { server: input.name, tools: hidden },
          hint: `Review them (shown as \\u{...}) with "mcpkit server diff ${input.name}"; approve anyway with --force.`,
        },
      );
    }
    const findings = (await scanListing(ctx, input.name, chosen)).filter((f) => chosen.some((t) => t.name === f.tool));
    const { failsAt } = await import('../../proxy/scan.js');
    if (failsAt(findings, 'high') && !input.force) {
      throw new ToolError(
        'FORBIDDEN',
        `Not approved: the scan finds what reads as an attack on the model in ${[...new Set(findings.filter((f) => f.severity === 'high' || f.severity === 'critical').map((f) => f.tool))].join(', ')}:\n${findings.map(findingLine).join('\n')}`,
        {
          details: { server: input.name, findings },
          hint: `Read the whole definitions with "mcpkit server diff ${input.name}"; approve anyway with --force only if you trust them.`,
        },
      );
    }
    let compared = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    await updatePins(file, (pins) => {
      const before = pins.servers[input.name] ?? {};
      compared = comparePins(before, chosen);
      if (input.tool) compared.removed = [];
      const next = input.tool ? { ...before } : {};
      for (const tool of chosen) next[tool.name] = pinOf(tool);
      pins.servers[input.name] = next;
      return true;
    });
    return { server: input.name, file, approved: chosen.map((t) => t.name).sort(), ...compared, findings };
  },
  render: (r, ui) =>
    `${r.findings.map((f) => `${ui.color.yellow(findingLine(f))}\n`).join('')}${ui.color.green('✓')} approved ${r.approved.length} tool(s) of ${r.server} (${r.added.length} new, ${r.changed.length} changed, ${r.removed.length} forgotten) in ${r.file}; a running serve serves them now.`,
});
