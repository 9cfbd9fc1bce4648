import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';
import { defineTool, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import { PIN_KINDS, type Listing, type PinKind } from '../../proxy/pins/pins.js';
import { listedNow, TERMINAL_ONLY } from './pins.js';
import { findingLine, scanListing } from './scan.js';

/**
 * `server approve`: records what a person reviewed with `server diff`, bound to it by the digest
 * diff printed. The server is listed again and nothing is recorded unless the listing still has
 * that digest; invisible characters and high scan findings are refused unless --force.
 */

function checkDigest(server: string, given: string | undefined, minimum: number): string {
  if (given === undefined) {
    throw new ToolError('INVALID_INPUT', `server approve records only what a person reviewed, and no review was named: give --digest.`, {
      details: { server },
      hint: `Review with "mcpkit server diff ${server}"; it prints a digest of what it showed. Then: mcpkit server approve ${server} --digest DIGEST`,
    });
  }
  const digest = given.trim().toLowerCase();
  if (!new RegExp(`^[0-9a-f]{${minimum},64}$`).test(digest)) {
    throw new ToolError(
      'INVALID_INPUT',
      `--digest "${given}" is not a digest: give the ${minimum} or more hex digits "mcpkit server diff ${server}" printed.`,
      {
        details: { server, digest: given },
      },
    );
  }
  return digest;
}

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
    'Record the definitions a person reviewed with "mcpkit server diff NAME" (tools, prompts, resources and resource templates; or only the named tools) in the lock file beside the config, so that serve serves them (tool pinning). --digest is the digest server diff printed: the server is listed again and its definitions are recorded only if they are still exactly what was shown; otherwise nothing is recorded. Refuses definitions with invisible characters or high-severity scan findings unless --force.',
  input: z.strictObject({
    name: z.string().min(1).describe('Name of the server in mcp_servers.'),
    digest: z
      .string()
      .optional()
      .describe('The digest "mcpkit server diff NAME" printed for what it showed (16 hex digits or more): only that listing is recorded.'),
    tool: z
      .array(z.string().min(1))
      .optional()
      .describe("Approve only these tools (the server's own names); repeatable. Default: everything listed, and forget what is gone."),
    force: z
      .boolean()
      .default(false)
      .describe('Approve definitions with invisible characters or high-severity scan findings too (after reviewing them in server diff).'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  hostAccess: 'processes',
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw TERMINAL_ONLY('server approve');
    const [{ updatePins, sectionOf }, { compareItems, pinOfItem, keyOf, invisibleInDefinition, reviewDigest, DIGEST_MIN_LENGTH }, { failsAt }] =
      await Promise.all([import('../../config/files/pin-file.js'), import('../../proxy/pins/pins.js'), import('../../proxy/pins/scan.js')]);
    const given = checkDigest(input.name, input.digest, DIGEST_MIN_LENGTH);
    const { listing, file, under } = await listedNow(ctx, input.name);
    if (!reviewDigest(input.name, listing).startsWith(given)) {
      throw new ToolError(
        'CONFLICT',
        `Nothing approved: server "${input.name}" no longer lists what the review with digest ${given.slice(0, DIGEST_MIN_LENGTH)} showed (it changed since, or the digest is of another server's review).`,
        {
          details: { server: input.name, digest: given },
          hint: `Review again with "mcpkit server diff ${input.name}", then approve with the digest it prints.`,
        },
      );
    }
    const names = listing.tools.map((t) => t.name);
    for (const wanted of input.tool ?? []) {
      if (!names.includes(wanted)) {
        const similar = closestNames(wanted, names);
        throw new ToolError('NOT_FOUND', `Server "${input.name}" lists no tool "${wanted}".${similar.length ? ` Did you mean ${similar.join(', ')}?` : ''}`, {
          details: { server: input.name, tool: wanted, similar },
          hint: `"mcpkit server diff ${input.name}" shows its tools.`,
        });
      }
    }
    // With --tool, only those tools; else everything listed, of every kind the server could list
    // (an empty kind too: what appears in it later is new).
    const chosen: Listing = input.tool ? { tools: listing.tools.filter((t) => input.tool!.includes(t.name)) } : listing;
    const kinds = (Object.keys(PIN_KINDS) as PinKind[]).filter((kind) => chosen[kind] !== undefined);
    const hidden = kinds.flatMap((kind) =>
      (chosen[kind] ?? []).flatMap((item) => {
        const chars = invisibleInDefinition(pinOfItem(kind, item).definition);
        return chars.length ? [`${keyOf(kind, item)} (${chars.join(', ')})`] : [];
      }),
    );
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
    const findings = await scanListing(ctx, input.name, chosen);
    if (failsAt(findings, 'high') && !input.force) {
      const at = [...new Set(findings.filter((f) => f.severity === 'high' || f.severity === 'critical').map((f) => f.tool))];
      throw new ToolError(
        'FORBIDDEN',
        `Not approved: the scan finds what reads as an attack on the model in ${at.join(', ')}:\n${findings.map(findingLine).join('\n')}`,
        {
          details: { server: input.name, findings },
          hint: `Read the whole definitions with "mcpkit server diff ${input.name}"; approve anyway with --force only if you trust them.`,
        },
      );
    }
    const counts = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    const others: { kind: PinKind; approved: number }[] = [];
    await updatePins(file, (pins) => {
      for (const kind of kinds) {
        const section = sectionOf(pins, kind);
        const items = chosen[kind] ?? [];
        const before = section[input.name] ?? {};
        const compared = compareItems(kind, before, items);
        const next = input.tool ? { ...before } : {};
        for (const item of items) next[keyOf(kind, item)] = pinOfItem(kind, item);
        section[input.name] = next;
        if (kind === 'tools') Object.assign(counts, { added: compared.added, changed: compared.changed, removed: input.tool ? [] : compared.removed });
        // What was reviewed was listed under these client capabilities: a listing under others pins what they add on first use again.
        if (kind === 'tools' && !input.tool) (pins.capability_sets ??= {})[input.name] = [...under.sets];
        else others.push({ kind, approved: items.length });
      }
      return true;
    });
    return { server: input.name, file, approved: (chosen.tools ?? []).map((t) => t.name).sort(), ...counts, others, findings };
  },
  render: (r, ui) =>
    `${r.findings.map((f) => `${ui.color.yellow(findingLine(f))}\n`).join('')}${ui.color.green('✓')} approved ${r.approved.length} tool(s) of ${r.server} (${r.added.length} new, ${r.changed.length} changed, ${r.removed.length} forgotten)${r.others
      .filter((o) => o.approved)
      .map((o) => `, ${o.approved} ${PIN_KINDS[o.kind].noun}(s)`)
      .join('')} in ${r.file}; a running serve serves them now.`,
});
