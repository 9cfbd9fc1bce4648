import type { Limiter } from '../../core/limits.js';
import type { DeclarationLimits } from '../../code/declaration-limits.js';
import type { ConditionSet } from '../../conditions/rules.js';
import type { MetaMode } from '../catalog/meta-tools.js';
import type { ViewCatalog } from '../catalog/view-catalog.js';
import type { Upstream } from '../upstream/upstream.js';
import type { HookChain } from './hooks.js';

/**
 * What a view's router is made with (./call-router.ts), in one place: each of its parts takes the
 * fields it needs of these (a Pick), so no part reaches for what is not its job.
 */

/** What the router needs of an upstream: a call through the SDK client, and the hot path. */
export type CallTarget = Pick<Upstream, 'call' | 'forward' | 'ready'>;

/** serve.upstream_limits of one server: calls wait for a place up to `queueMs`, then are refused. */
export interface UpstreamGate {
  /** A place for one call, waiting up to queue_ms (core/limits.ts Limiter, or the shared store's). */
  limiter: Pick<Limiter, 'wait'>;
  queueMs: number;
}

export interface CallRouterOptions {
  catalog: ViewCatalog;
  /** The view's servers by name. */
  targets: ReadonlyMap<string, CallTarget>;
  hooks: HookChain;
  /** The view's name, for hooks (absent for the default view). */
  view?: string;
  /** The view's conditions on arguments (./conditions-check.ts). */
  conditions?: ConditionSet | undefined;
  /** Exposure is not `direct`: the view has the search meta-tools, or code mode's (`code`). */
  meta: false | MetaMode;
  /** Code mode's bounds of declarations (the view's code settings), for search and describe. */
  declarations?: DeclarationLimits;
  /** Told when an upstream's input schema cannot be compiled (its arguments are then not checked). */
  unenforced(reason: string): void;
  /** serve.upstream_limits: the gate of a server's calls, if it has one (its calls then take the ordinary path). */
  upstreamGate?: (server: string) => UpstreamGate | undefined;
}
