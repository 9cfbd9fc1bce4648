import type { ConditionSet } from '../conditions/rules.js';
import type { Admission } from '../core/limits.js';

/**
 * Who calls, for the audit log, and what a named client of serve (serve.clients) may call: absent
 * parts mean no rule and no limit. The proxy applies it to listings, calls, the meta-tools and
 * composite steps alike.
 */
export interface ToolAccess {
  /** A configured client's name, else how it was let in: `token:serve`, `token:<hash>`, `oauth:<subject>`, `anonymous`. */
  readonly client: string;
  /** `client` is the name of a configured client (else how it was let in). */
  readonly named?: boolean;
  /** Whether it may call a tool, by its published name and whether it only reads; absent: anything served. */
  readonly allows?: (tool: { name: string; readOnly: boolean }) => boolean;
  /** The client is read-only: mcpkit's own writers that enforce read-only run with the read-only policy. */
  readonly readOnly?: boolean;
  /**
   * A place for one call under its rate and max_concurrent, or why not; absent: no limits. A
   * promise when the limits are kept in the shared store (serve.store), which may also reject
   * (UNAVAILABLE: the call is not run without its limits).
   */
  readonly admit?: () => Admission | Promise<Admission>;
  /** Its conditions on arguments (serve.clients.NAME.conditions), compiled for this config generation. */
  readonly conditions?: ConditionSet;
  /** What its conditions see as `claims`: the claims its entry recognises it by (serve.clients.NAME.claims). */
  readonly claims?: Readonly<Record<string, unknown>>;
}
