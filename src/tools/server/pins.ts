import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import { defineTool } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import { findingLine, scanListing } from './scan.js';
import { PIN_KINDS, type Listing, type PinKind } from '../../proxy/pins.js';
import type { KindReview } from '../../proxy/pin-review.js';

const PIN_NOUNS = Object.fromEntries(Object.entries(PIN_KINDS).map(([kind, k]) => [kind, k.noun])) as Record<PinKind, string>;

/**
 * Tool pinning from the terminal: `server diff` shows what changed since approval, `server
 * approve` records what a person reviewed. Neither is offered to MCP clients: an agent must not
 * approve the tools it is given, nor read the text they were withheld for.
 */

export const TERMINAL_ONLY = (what: string) =>
  new ToolError('FORBIDDEN', `${what} is for a person at a terminal, not for an MCP client: approving its own tools would defeat tool pinning.`, {
    hint: 'Run it in a terminal: mcpkit server diff NAME, then mcpkit server approve NAME.',
  });

/**
 * The server's listing now (its own definitions): tools, and the prompts, resources and templates
 * it offers (a kind whose listing fails is left out, never taken as empty); and the lock file.
 */
export async function listedNow(ctx: ToolContext, name: string): Promise<{ listing: Listing; file: string }> {
  const [config, { requireUsable }, { pinFilePath }] = await Promise.all([
    ctx.config(),
    import('../../config/problems.js'),
    import('../../config/pin-file.js'),
  ]);
  const server = config.mcp_servers[name];
  if (!server) throw unknownServer(name, Object.keys(config.mcp_servers));
  requireUsable(config, `mcp_servers.${name}`);
  const listing = await ctx.servers.with(name, server, async (upstream) => {
    const tools = await upstream.listTools();
    const [prompts, resources, templates] = await Promise.all([
      upstream.listPrompts().catch(() => undefined),
      upstream.listResources().catch(() => undefined),
      upstream.listResourceTemplates().catch(() => undefined),
    ]);
    return {
      tools,
      ...(prompts ? { prompts } : {}),
      ...(resources ? { resources } : {}),
      ...(templates ? { resource_templates: templates } : {}),
    };
  });
  return { listing, file: pinFilePath(ctx.configLocation.path) };
}

/** The kinds besides tools that a listing has, or that the lock file has pins of (`pinned`). */
function otherKinds(listing: Listing, pinned: (kind: Exclude<PinKind, 'tools'>) => boolean): Exclude<PinKind, 'tools'>[] {
  return (['prompts', 'resources', 'resource_templates'] as const).filter((kind) => listing[kind]?.length || pinned(kind));
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
    const { listing, file } = await listedNow(ctx, input.name);
    const [{ readPins, sectionOf }, { reviewDigest, DIGEST_MIN_LENGTH }, { reviewKind, reviewDiffers }] = await Promise.all([
      import('../../config/pin-file.js'),
      import('../../proxy/pins.js'),
      import('../../proxy/pin-review.js'),
    ]);
    const lock = readPins(file);
    const { kind: _kind, ...tools } = reviewKind('tools', lock.servers[input.name], listing.tools);
    const others = otherKinds(listing, (kind) => sectionOf(lock, kind)[input.name] !== undefined).flatMap((kind) => {
      const review = reviewKind(kind, sectionOf(lock, kind)[input.name], listing[kind] ?? []);
      return review.pinned || review.added.length ? [review] : [];
    });
    const digest = reviewDigest(input.name, listing);
    return {
      server: input.name,
      file,
      differs: reviewDiffers({ kind: 'tools', ...tools }) || others.some(reviewDiffers),
      /** The digest of the listing shown: `server approve NAME --digest` records it only while the server still lists exactly this. */
      digest,
      digest_short: digest.slice(0, DIGEST_MIN_LENGTH),
      ...tools,
      /** Prompts, resources and resource templates, reviewed the same way. */
      others,
      /** What the scanner (server scan) finds in the definitions shown. */
      findings: await scanListing(ctx, input.name, listing, lock),
    };
  },
  exitCode: (r) => (r.differs ? 1 : 0),
  render: (r, ui) => {
    const paint = (line: string) => (line.startsWith('+ ') ? ui.color.green(line) : line.startsWith('- ') ? ui.color.red(line) : ui.color.dim(line));
    const section = (title: string, items: { name: string; diff: string[] }[]) =>
      items.flatMap((item) => [ui.color.bold(`${title} ${item.name}`), ...item.diff.map(paint), '']);
    const counts = (k: Pick<KindReview, 'added' | 'removed' | 'changed' | 'unchanged' | 'tampered'>, noun: string) =>
      `${k.added.length} ${noun}(s) added, ${k.removed.length} removed, ${k.changed.length} changed, ${k.unchanged} unchanged${k.tampered.length ? `, ${k.tampered.length} with a pin that does not match its hash` : ''}`;
    const head = !r.pinned
      ? `Server ${r.server} has no approved tools yet (${r.file}).`
      : r.differs
        ? `Server ${r.server} differs from what was approved (${r.file}): ${[counts(r, 'tool'), ...r.others.map((o) => counts(o, PIN_NOUNS[o.kind]))].join('; ')}.`
        : `${ui.color.green('✓')} Server ${r.server} matches its ${r.unchanged} approved tools${r.others.map((o) => `, ${o.unchanged} ${PIN_NOUNS[o.kind]}(s)`).join('')} (${r.file}).`;
    const tampered = (k: Pick<KindReview, 'tampered'>, noun: string) =>
      k.tampered.map((t) =>
        ui.color.red(
          `! the pin of ${noun} ${t.tool} in ${r.file} does not match its own sha256${t.fields.length ? ` (edited: ${t.fields.join(', ')})` : ''}: it approves nothing. Restore the file from version control, or review and approve again.`,
        ),
      );
    const kinds = [{ ...r, noun: 'tool' }, ...r.others.map((o) => ({ ...o, noun: PIN_NOUNS[o.kind] }))];
    return [
      head,
      '',
      ...kinds.flatMap((k) => [...section(`added ${k.noun}`, k.added), ...section(`removed ${k.noun}`, k.removed), ...section(`changed ${k.noun}`, k.changed)]),
      ...kinds.flatMap((k) => tampered(k, k.noun)),
      ...(r.findings.length ? [ui.color.bold(`scan: ${r.findings.length} finding(s)`), ...r.findings.map((f) => ui.color.yellow(findingLine(f)))] : []),
      ...kinds.flatMap((k) => k.invisible.map((i) => ui.color.yellow(`! ${k.noun} ${i.tool} has invisible characters: ${i.characters.join(', ')}`))),
      ...(r.differs || !r.pinned
        ? [`Digest of what was shown: ${r.digest_short}. Approve exactly this with: mcpkit server approve ${r.server} --digest ${r.digest_short}`]
        : []),
    ]
      .join('\n')
      .trimEnd();
  },
});
