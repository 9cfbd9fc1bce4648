import { KeptLimiters, parseRate, type Admission, type LimitText } from '../../core/limits.js';
import type { SharedStore } from '../../store/shared-store.js';
import { LastSeenWriter } from '../../store/last-seen.js';
import type { ToolAccess } from '../../tool/context.js';
import { ConditionSet, type ConditionSpec } from '../../conditions/rules.js';
import { compileClientRules, restricts, type ToolRuleText } from '../../proxy/catalog/client-access.js';
import type { Caller, ClientRoutes } from './route-access.js';

/** A named client of serve.clients, as serve --http is given it. */
export interface ServedClient extends ClientRoutes {
  tools?: readonly ToolRuleText[];
  read_only?: boolean;
  rate?: string;
  max_concurrent?: number;
  conditions?: Readonly<Record<string, ConditionSpec>>;
}

/** The name a caller is recorded under: its configured name, else how it was let in (`token:serve`, `token:<hash>`, `oauth:<subject>`, `anonymous`). */
export function identityOf(caller: Caller): string {
  return caller.client ?? caller.id;
}

/**
 * What each caller of serve --http may call and how fast: a ToolAccess per identity, made once per
 * config generation (the clients' rules follow the config live) over limiters that outlive a
 * reload while the client's limits stay the same (a reload does not refill a bucket).
 */
export class ServedClients {
  private readonly limiters: KeptLimiters;
  private made = new WeakMap<readonly ServedClient[], Map<string, ToolAccess>>();
  private readonly unnamed = new Map<string, ToolAccess>();
  /** serve.store: when each named client was last seen, for `mcpkit clients` (throttled). */
  private readonly seen?: LastSeenWriter;

  constructor(
    now: () => number = () => performance.now(),
    /** serve.store: the limits are kept there, across replicas, instead of in this process. */
    private readonly store?: SharedStore,
  ) {
    this.limiters = new KeptLimiters(now);
    if (store) this.seen = new LastSeenWriter(store);
  }

  /** The access of a caller under the clients of the current settings. */
  accessOf(clients: readonly ServedClient[] | undefined, caller: Caller): ToolAccess {
    if (caller.client === undefined || !clients) return this.plain(identityOf(caller));
    // Asked for each request of a named client: the moment it was seen.
    this.seen?.saw(caller.client);
    let byName = this.made.get(clients);
    if (!byName) this.made.set(clients, (byName = new Map()));
    let access = byName.get(caller.client);
    if (!access) {
      const spec = clients.find((c) => c.name === caller.client);
      // A client a reload removed: its streams are ended (mcp/http/revocations.ts); until then it may call nothing.
      access = spec ? this.make(spec) : { client: caller.client, named: true, allows: () => false };
      byName.set(caller.client, access);
    }
    return access;
  }

  private plain(client: string): ToolAccess {
    let access = this.unnamed.get(client);
    if (!access) {
      if (this.unnamed.size > 1000) this.unnamed.clear();
      this.unnamed.set(client, (access = { client }));
    }
    return access;
  }

  private make(spec: ServedClient): ToolAccess {
    const rules = restricts(spec) ? compileClientRules(spec) : undefined;
    const local = this.store ? undefined : this.limiters.of(spec.name, spec);
    const admit = this.store ? sharedAdmission(this.store, `client:${spec.name}`, spec) : local && (() => local.admit());
    const conditions = ConditionSet.compile(`serve.clients.${spec.name}.conditions`, spec.conditions);
    return {
      client: spec.name,
      named: true,
      ...(rules ? { allows: (tool: { name: string; readOnly: boolean }) => rules(tool).allowed } : {}),
      ...(spec.read_only ? { readOnly: true } : {}),
      ...(admit ? { admit } : {}),
      ...(conditions ? { conditions, claims: spec.claims ?? {} } : {}),
    };
  }
}

/** A name's limits kept in the shared store (every replica counts against them); undefined when it has none. */
export function sharedAdmission(store: SharedStore, name: string, limits: LimitText): (() => Promise<Admission>) | undefined {
  if (limits.rate === undefined && limits.max_concurrent === undefined) return undefined;
  const rate = limits.rate !== undefined ? parseRate(limits.rate) : undefined;
  const spec = { ...(rate ? { rate } : {}), ...(limits.max_concurrent !== undefined ? { maxConcurrent: limits.max_concurrent } : {}) };
  return () => store.admit(name, spec);
}
