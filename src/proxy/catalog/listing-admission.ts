import type { Tool } from '@modelcontextprotocol/server';
import { keepUnderReadOnly } from '../../tool/policy.js';
import { pinOf, type PinDifference, type PinMode, type PinVerdict } from '../pins/pins.js';
import { buildCatalog, type CatalogEntry } from './catalog.js';
import { lockAnswered } from './lock-answered.js';
import { reshapeTools, shapeServerTools } from './shape.js';
import type { ToolSource } from './tool-sources.js';
import { viewPrefixes, type ResolvedView } from './view.js';

/**
 * What each server's listing puts in a view's catalog under its pins: the tools served, shaped and
 * named as the view publishes them, and the ones withheld, kept under the name they would have.
 * Apart from ./view-catalog.ts, which decides when to list and what to keep: this part only reads
 * what the servers have listed so far and judges it, so it never waits and never starts a server.
 */

/** What the catalog asks of the tool pins (../pins/pin-keeper.ts): what of a server's listing may be served. */
export interface PinGate {
  /**
   * `pinFirstUse` false: a server with no pins yet is not pinned from these tools (they are an
   * earlier listing, not a live one). `capabilities`: what the listing's connection offered.
   */
  admit(server: string, tools: readonly Tool[], mode: PinMode, pinFirstUse?: boolean, capabilities?: string): PinVerdict;
  /** serve: the lock's approved tools, a listing's answer while the server starts (../pins/lock-listing.ts). */
  approved?(server: string): Tool[] | undefined;
}

/** A tool withheld by its pins, under the name the view would publish it. */
export interface WithheldTool {
  server: string;
  tool: string;
  why: PinDifference;
}

export interface ListingAdmissionOptions {
  view: ResolvedView;
  sources: ReadonlyMap<string, ToolSource>;
  /** Tool pinning; absent: every listed tool is served. */
  pins?: PinGate;
  /** A tool served though it differs from its pins (pinning: warn); said once per tool and definition. */
  differs?(server: string, tool: string, why: PinDifference): void;
}

/** The catalog the listings make, and the tools their pins withhold by published name. */
export interface AdmittedListings {
  entries: Map<string, CatalogEntry>;
  withheld: Map<string, WithheldTool>;
}

export class ListingAdmission {
  /** The differing tools already told, per server, tool and definition. */
  private readonly told = new Set<string>();

  constructor(private readonly options: ListingAdmissionOptions) {}

  /** The catalog from the tools each upstream has listed so far (none, for one not yet connected). */
  admitted(): AdmittedListings {
    const { view, sources, pins } = this.options;
    const withheld: { server: string; tools: ReturnType<typeof shapeServerTools> }[] = [];
    const why = new Map<string, WithheldTool>();
    const fromLock = lockAnswered(view, sources, (server) => pins?.approved?.(server));
    const upstreamTools = view.servers.map(({ name, config, view: shaping }) => {
      const source = sources.get(name)!;
      const listed = fromLock.get(source) ?? source.cachedTools();
      // A seed is checked against the pins, but never pinned on first use: only a live listing is.
      const verdict = this.verdict(name, listed, config.pinning ?? view.pinning, source.listedLive?.() !== false, source.capabilitySet?.());
      const shape = (tools: Tool[]) => {
        const own = shapeServerTools(tools, config);
        const shaped = shaping ? reshapeTools(own, shaping) : own;
        return view.readOnly ? shaped.filter((t) => keepUnderReadOnly(t.tool.annotations)) : shaped;
      };
      const notServed = verdict.differing.filter((d) => d.withheld);
      for (const d of notServed) why.set(`${name}\u0000${d.tool.name}`, { server: name, tool: d.tool.name, why: d.why });
      withheld.push({ server: name, tools: shape(notServed.map((d) => d.tool)) });
      return { server: name, tools: shape(verdict.served) };
    });
    const composites = view.readOnly ? [] : view.composites;
    const naming = { separator: view.separator, prefix: viewPrefixes(view) };
    const entries = buildCatalog(view.local, upstreamTools, naming, composites);
    const held = buildCatalog([], withheld, naming).flatMap((e) =>
      e.kind === 'upstream' ? [[e.name, why.get(`${e.server}\u0000${e.upstreamName}`)!] as const] : [],
    );
    return { entries: new Map(entries.map((e) => [e.name, e])), withheld: new Map(held) };
  }

  /** The server's listing under its pins; a tool served though it differs (warn) is told to the view's clients once. */
  private verdict(server: string, tools: Tool[], mode: PinMode, live: boolean, capabilities: string | undefined): PinVerdict {
    const verdict = this.options.pins?.admit(server, tools, mode, live, live ? capabilities : undefined) ?? { served: tools, differing: [], firstUse: false };
    for (const { tool, why, withheld } of verdict.differing) {
      if (withheld) continue;
      const key = `${server}\u0000${tool.name}\u0000${pinOf(tool).sha256}`;
      if (this.told.has(key)) continue;
      this.told.add(key);
      this.options.differs?.(server, tool.name, why);
    }
    return verdict;
  }
}
