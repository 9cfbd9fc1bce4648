import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { unknownServer } from '../../core/suggest.js';
import { defineTool, TERMINAL_ONLY_TOOL } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import { findingLine, scanListing } from './scan.js';
import { PIN_KINDS, type Listing, type PinKind } from '../../proxy/pins/pins.js';
import type { KindReview } from '../../proxy/pins/pin-review.js';

const PIN_NOUNS = Object.fromEntries(Object.entries(PIN_KINDS).map(([kind, k]) => [kind, k.noun])) as Record<PinKind, string>;

/**
 * Tool pinning from the terminal: `server diff` shows what changed since approval, `server
 * approve` records what a person reviewed. Neither is offered to MCP clients: an agent must not
 * approve the tools it is given, nor read the text they were withheld for.
 */

export const TERMINAL_ONLY = (what: string) =>
  new ToolError('FORBIDDEN', `${what} is for a person at a terminal, not for an MCP client: approving its own tools would defeat tool pinning.`, {
    hint: 'Run it in a terminal: mcpkit server diff NAME, then mcpkit server approve NAME --digest DIGEST (the digest diff prints).',
  });

/** Under which client capabilities a review listed a server, and what only some of them showed. */
export interface ListedUnder {
  /** The capability sets listed ("" for none), as the lock records them. */
  sets: string[];
  /** Tools listed only under a set, by set. */
  only: Record<string, string[]>;
  /** Why a set could not be listed (the review shows the others). */
  failed?: string;
}

/**
 * The server's listing now (its own definitions): tools, and the prompts, resources and templates
 * it offers (a kind whose listing fails is left out, never taken as empty); and the lock file.
 * Tools are listed twice, as serve's shared connections list them: offering no client
 * capabilities (2025 clients), and offering elicitation and sampling (2026 clients, whose
 * questions are bridged), since a server may list more to the second (server-everything lists
 * three more). The review shows both, so that a person approves once for every client.
 */
export async function listedNow(ctx: ToolContext, name: string): Promise<{ listing: Listing; file: string; under: ListedUnder }> {
  const [config, { requireUsable }, { pinFilePath }] = await Promise.all([
    ctx.config(),
    import('../../config/check/problems.js'),
    import('../../config/files/pin-file.js'),
  ]);
  const server = config.mcp_servers[name];
  if (!server) throw unknownServer(name, Object.keys(config.mcp_servers));
  requireUsable(config, `mcp_servers.${name}`);
  const plain = ctx.servers.with(name, server, async (upstream) => {
    const tools = await upstream.listTools();
    const [prompts, resources, templates] = await Promise.all([
      upstream.listPrompts().catch(() => undefined),
      upstream.listResources().catch(() => undefined),
      upstream.listResourceTemplates().catch(() => undefined),
    ]);
    const listing: Listing = {
      tools,
      ...(prompts ? { prompts } : {}),
      ...(resources ? { resources } : {}),
      ...(templates ? { resource_templates: templates } : {}),
    };
    return { listing, set: upstream.capabilitySet() ?? '' };
  });
  const modern = ctx.servers.with(name, server, async (upstream) => ({ tools: await upstream.listTools(), set: upstream.capabilitySet() ?? '' }), {
    asModernClients: true,
  });
  const [first, second] = await Promise.allSettled([plain, modern]);
  if (first.status === 'rejected') throw first.reason;
  const { listing, set } = first.value;
  const under: ListedUnder = { sets: [set], only: {} };
  if (second.status === 'rejected') under.failed = `${second.reason instanceof Error ? second.reason.message : String(second.reason)}`;
  else if (second.value.set !== set) {
    under.sets.push(second.value.set);
    const known = new Set(listing.tools.map((t) => t.name));
    const more = second.value.tools.filter((t) => !known.has(t.name));
    if (more.length) under.only[second.value.set] = more.map((t) => t.name);
    listing.tools = [...listing.tools, ...more];
  }
  return { listing, file: pinFilePath(ctx.configLocation.path), under };
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
    'Connect to a server and compare its tools with the definitions approved in the lock file beside the config (tool pinning): tools added, removed and changed, with a diff of each change (invisible characters shown as \\u{...}). Exits 1 when anything differs, so CI can gate on it; approve what it showed with "mcpkit server approve NAME --digest DIGEST" (the digest it prints).',
  input: z.strictObject({ name: z.string().min(1).describe('Name of the server in mcp_servers.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  hostAccess: 'processes',
  ...TERMINAL_ONLY_TOOL,
  async run(input, ctx) {
    if (ctx.surface !== 'cli') throw TERMINAL_ONLY('server diff');
    const { listing, file, under } = await listedNow(ctx, input.name);
    const [{ readPins, sectionOf }, { reviewDigest, DIGEST_MIN_LENGTH }, { reviewKind, reviewDiffers }] = await Promise.all([
      import('../../config/files/pin-file.js'),
      import('../../proxy/pins/pins.js'),
      import('../../proxy/pins/pin-review.js'),
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
      /** The client capabilities it was listed under, and the tools only some of them showed. */
      listed_under: under,
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
      ...Object.entries(r.listed_under.only).map(
        ([set, tools]) => `Listed only to a client offering ${set} (2026-07-28 clients, through mcpkit): ${tools.join(', ')}; approving covers them too.`,
      ),
      ...(r.listed_under.failed
        ? [ui.color.yellow(`! listed only as 2025 clients see it; offering elicitation and sampling failed: ${r.listed_under.failed}`)]
        : []),
      ...(r.differs || !r.pinned
        ? [`Digest of what was shown: ${r.digest_short}. Approve exactly this with: mcpkit server approve ${r.server} --digest ${r.digest_short}`]
        : []),
    ]
      .join('\n')
      .trimEnd();
  },
});
