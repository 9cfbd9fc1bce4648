import { compositeSteps, type CompositeConfig } from '../../config/schema/schema.js';
import type { CatalogEntry } from '../catalog/catalog.js';

/** The router's helpers that need none of its state (./call-lookup.ts, ./hooked-call.ts). Pure. */

/** The tools a composite calls, as its config names them. */
export function stepRefs(spec: CompositeConfig): string[] {
  return compositeSteps(spec).map((step) => step.tool);
}

/** The entry a composite step names: `server.tool` (its own or published name) or an mcpkit tool. */
export function stepEntry(entries: readonly CatalogEntry[], ref: string): CatalogEntry | undefined {
  const dot = ref.indexOf('.');
  return dot > 0
    ? entries.find(
        (e) => e.kind === 'upstream' && e.server === ref.slice(0, dot) && (e.tool.name === ref.slice(dot + 1) || e.upstreamName === ref.slice(dot + 1)),
      )
    : entries.find((e) => e.kind === 'local' && e.name === ref);
}
