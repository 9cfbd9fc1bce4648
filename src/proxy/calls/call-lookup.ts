import { ToolError } from '../../core/errors.js';
import { closestNames } from '../../core/suggest.js';
import type { ToolAccess } from '../../tool/tool-access.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import type { ViewCatalog, WithheldTool } from '../catalog/view-catalog.js';
import { notApprovedError } from './not-approved.js';
import { stepEntry, stepRefs } from './router-parts.js';

/**
 * What a called name is, and whether this client may call it: one answer for every front end
 * (MCP and the terminal) and every path a call takes (direct, a meta-tool, a composite step, code
 * mode's declarations). A tool this client may not call is unknown, exactly as one that does not
 * exist, so nothing here tells a client what its rules hide.
 */

/** What a called name is (CallLookup.find). */
export type Found =
  | { kind: 'entry'; entry: CatalogEntry }
  | { kind: 'withheld' | 'gone' | 'refused'; error: ToolError }
  | { kind: 'unknown'; similar: string[] };

export class CallLookup {
  constructor(private readonly catalog: ViewCatalog) {}

  /**
   * What a name the client calls is: a tool it may call; one its pins withhold (TOOL_NOT_APPROVED);
   * one an earlier listing showed that is gone (NOT_FOUND, saying so); or unknown, with the names
   * like it this client may call. `lookup` finds the entry (the terminal's starts only the server
   * an earlier listing names).
   */
  async find(
    name: string,
    access: ToolAccess | undefined,
    lookup: (name: string) => Promise<CatalogEntry | undefined> = (n) => this.catalog.entry(n),
  ): Promise<Found> {
    const entry = await lookup(name);
    if (entry && (await this.permitted(entry, access))) return { kind: 'entry', entry };
    if (!entry && this.allowsName(access, name)) {
      const held = this.catalog.withheldTool(name);
      if (held) return { kind: 'withheld', error: notApproved(name, held) };
      // A name the client saw in an earlier listing: said so, with what to do, never "unknown".
      const gone = this.catalog.goneTool(name);
      if (gone) {
        const error = new ToolError('NOT_FOUND', `Tool ${name} is no longer offered: the tools of ${gone} changed since it was listed.`, {
          details: { tool: name, similar: await this.similar(name, access) },
          hint: 'List the tools again (tools/list); the view sent list_changed when they changed.',
        });
        return { kind: 'gone', error };
      }
      const refused = this.catalog.refusedTool(name);
      if (refused) return { kind: 'refused', error: refused };
    }
    return { kind: 'unknown', similar: await this.similar(name, access) };
  }

  /** The names like `name` that this client may call. */
  async similar(name: string, access: ToolAccess | undefined): Promise<string[]> {
    return closestNames(name, access?.allows ? [...(await this.permittedNames(access))] : await this.catalog.names());
  }

  /**
   * Whether the client may call an entry: its rules over the published name (and read_only over
   * what the tool declares); a composite only when it may call every step as well.
   */
  async permitted(entry: CatalogEntry, access: ToolAccess | undefined): Promise<boolean> {
    if (!access?.allows) return true;
    if (entry.kind !== 'composite') return access.allows({ name: entry.name, readOnly: readsOnly(entry) });
    const entries = [...(await this.catalog.current()).values()];
    const steps = stepRefs(entry.spec).map((ref) => stepEntry(entries, ref));
    if (steps.some((step) => !step)) return false;
    // A composite is published as a writer (readOnlyHint false), as a read-only view leaves it out.
    return access.allows({ name: entry.name, readOnly: false }) && steps.every((step) => access.allows!({ name: step!.name, readOnly: readsOnly(step!) }));
  }

  /** The names of the catalog this client may call. */
  async permittedNames(access: ToolAccess): Promise<Set<string>> {
    const out = new Set<string>();
    for (const entry of (await this.catalog.current()).values()) if (await this.permitted(entry, access)) out.add(entry.name);
    return out;
  }

  private allowsName(access: ToolAccess | undefined, name: string): boolean {
    return !access?.allows || access.allows({ name, readOnly: false }) || access.allows({ name, readOnly: true });
  }
}

/** Whether a tool only reads: it declares readOnlyHint, or it is one of mcpkit's writers that refuse to write under read-only. */
export function readsOnly(entry: CatalogEntry): boolean {
  if (entry.kind === 'local') return entry.tool.annotations.readOnlyHint || entry.tool.enforcesReadOnly === true;
  return entry.tool.annotations?.readOnlyHint === true;
}

/** A call to a tool its pins withhold: what changed, and how to review and approve it. */
export function notApproved(name: string, held: WithheldTool): ToolError {
  return notApprovedError({ noun: 'tool', name, server: held.server, upstreamName: held.tool, why: held.why });
}
