import type { ConditionSpec } from '../../conditions/rules.js';
import type { CompositeConfig, McpkitConfig, ServerConfig } from '../../config/schema/schema.js';
import { DEFAULT_PIN_MODE, SETTING_DEFAULTS } from '../../config/schema/defaults.js';
import { requireUsable } from '../../config/check/problems.js';
import { stableJson } from '../../core/stable-json.js';
import { ToolError } from '../../core/errors.js';
import { notFound } from '../../core/suggest.js';
import { DEFAULT_POLICY, type Policy } from '../../tool/process-policy.js';
import type { AnyTool } from '../../tool/define.js';
import { applyPolicy } from '../../tool/policy.js';
import type { HookConfig } from '../../config/schema/schema.js';
import type { Exposure, PinMode } from '../../config/schema/defaults.js';
import type { ServerShaping } from './shape.js';

/**
 * Which tools a view serves. No view name: the default view, mcpkit's own tools plus every
 * enabled server. A named view takes only the servers, groups and tools it
 * lists. Pure.
 */
export interface ResolvedView {
  name?: string;
  description?: string;
  exposure: Exposure;
  /** Most tokens tools/list may cost under exposure auto. */
  tokenBudget: number;
  /** Listed directly whatever the exposure. */
  pins: string[];
  /** undefined: the default `__`; null: never prefix. */
  separator?: string | null;
  /**
   * Whether its servers' tools are published as `server__tool`. Decided by what the view is, never
   * by which of its servers are enabled or answering now, so a name does not move when another
   * server comes or goes: the default view always prefixes (it serves every server there is); a
   * named view prefixes when it lists more than one server. Undefined (a view a front end made,
   * `filter run`): when it has more than one.
   */
  prefixed?: boolean;
  /** `problems`: why a server was set aside (McpkitConfig.unusable); it is listed as down, never started. */
  servers: { name: string; config: ServerConfig; view?: ServerShaping; problems?: readonly string[] }[];
  local: AnyTool[];
  composites: { name: string; spec: CompositeConfig }[];
  /** Global hooks first, then the view's own. */
  hooks: HookConfig[];
  tokens?: string[];
  /** serve --read-only or the view's read_only: upstream and composite tools that do not declare readOnlyHint are left out. */
  readOnly: boolean;
  /** Tool pinning for servers that do not set their own (config `pinning`, default enforce). */
  pinning: PinMode;
  /** Code mode's limits (the view's `code`, else serve.code), under exposure code. */
  code?: CodeSettings;
  /** Its conditions on arguments, as written (the hub compiles them: conditions/rules.ts). */
  conditions?: Readonly<Record<string, ConditionSpec>>;
}

export type CodeSettings = NonNullable<McpkitConfig['serve']['code']>;

/**
 * `allTools` are every tool of mcpkit's own; the view serves those the process's policy, narrowed
 * by the view's own `read_only`, offers (./tool/policy.ts). Names are checked against all of them,
 * so a view naming a writer is not an error under --read-only: the writer is just not served.
 */
export function resolveView(
  config: McpkitConfig,
  viewName: string | undefined,
  allTools: readonly AnyTool[],
  policy: Policy = DEFAULT_POLICY,
  env: NodeJS.ProcessEnv = {},
): ResolvedView {
  const exposure = (own?: { exposure?: Exposure; token_budget?: number; code?: CodeSettings }) => {
    const code = own?.code ?? config.serve.code;
    return {
      exposure: policy.exposure ?? own?.exposure ?? config.serve.exposure ?? SETTING_DEFAULTS.serve.exposure,
      tokenBudget: policy.tokenBudget ?? own?.token_budget ?? config.serve.token_budget ?? SETTING_DEFAULTS.serve.token_budget,
      pinning: config.pinning ?? DEFAULT_PIN_MODE,
      ...(code ? { code } : {}),
    };
  };
  if (viewName === undefined) {
    return {
      readOnly: policy.readOnly,
      ...exposure(),
      pins: config.serve.pin ?? [],
      prefixed: true,
      servers: viewServers(config, undefined)!,
      local: applyPolicy(allTools, policy, config, env),
      composites: Object.entries(config.composite_tools).map(([name, spec]) => ({ name, spec })),
      hooks: [config.hooks],
    };
  }
  requireUsable(config, `tool_views.${viewName}`);
  const spec = config.tool_views[viewName];
  if (!spec) {
    const names = Object.keys(config.tool_views);
    throw notFound('view', viewName, names, names.length ? `Views: ${names.join(', ')}.` : 'Create one with: mcpkit view create NAME', { views: names });
  }
  const servers = viewServers(config, viewName)!;

  const groups = new Set(spec.groups ?? []);
  const known = new Set(allTools.map((t) => t.group));
  const problems = [
    ...[...groups].filter((g) => !known.has(g)).map((g) => `group "${g}" (known: ${[...known].join(', ')})`),
    ...(spec.tools ?? []).filter((t) => !allTools.some((l) => l.name === t) && !Object.hasOwn(config.composite_tools, t)).map((t) => `tool "${t}"`),
  ];
  if (problems.length) {
    throw new ToolError('CONFIG_INVALID', `View "${viewName}" names unknown mcpkit ${problems.join(', ')}.`, {
      details: { view: viewName, unknown: problems },
      hint: '"mcpkit tools --local" lists mcpkit\'s tools and their groups.',
    });
  }
  const readOnly = policy.readOnly || spec.read_only === true;
  const chosen = allTools.filter((t) => groups.has(t.group) || (spec.tools ?? []).includes(t.name));
  const local = applyPolicy(chosen, { ...policy, readOnly }, config, env);
  const composites = Object.entries(config.composite_tools)
    .filter(([name]) => (spec.tools ?? []).includes(name))
    .map(([name, c]) => ({ name, spec: c }));
  const hooks = spec.hooks ? [config.hooks, spec.hooks] : [config.hooks];
  // The servers the view lists, enabled or not: adding or disabling one elsewhere moves no name.
  const listed = Array.isArray(spec.servers) ? spec.servers.length : Object.keys(spec.servers ?? {}).length;
  const out: ResolvedView = { name: viewName, ...exposure(spec), pins: spec.pin ?? [], prefixed: listed > 1, servers, local, composites, hooks, readOnly };
  if (spec.description !== undefined) out.description = spec.description;
  if (spec.separator !== undefined) out.separator = spec.separator;
  if (spec.tokens) out.tokens = spec.tokens;
  if (spec.conditions) out.conditions = spec.conditions;
  return out;
}

/**
 * The enabled servers a view takes (undefined: the default view, every enabled server), each with
 * the view's shaping of it and, for an entry set aside, its problems; undefined for a view the
 * config does not have. Pure.
 */
export function viewServers(config: McpkitConfig, viewName: string | undefined): ResolvedView['servers'] | undefined {
  if (viewName === undefined) {
    return Object.entries(config.mcp_servers)
      .filter(([, s]) => s.disabled !== true)
      .map(([name, cfg]) => withProblems(config, { name, config: cfg }));
  }
  const spec = config.tool_views[viewName];
  if (!spec) return undefined;
  const selection: [string, ServerShaping | undefined][] = Array.isArray(spec.servers)
    ? spec.servers.map((s) => [s, undefined])
    : Object.entries(spec.servers ?? {}).map(([s, shaping]) => [s, shaping ?? undefined]);
  return selection
    .filter(([name]) => config.mcp_servers[name] && config.mcp_servers[name].disabled !== true)
    .map(([name, view]) => withProblems(config, { name, config: config.mcp_servers[name]!, ...(view ? { view } : {}) }));
}

function withProblems<T extends { name: string }>(config: McpkitConfig, server: T): T & { problems?: readonly string[] } {
  const problems = config.unusable?.[`mcp_servers.${server.name}`];
  return problems ? { ...server, problems } : server;
}

/**
 * What a resolved view serves, as a string that changes exactly when the view does (mcpkit's own
 * tools by name): a reload re-points a hub only when its fingerprint or its upstreams changed. Pure.
 */
export function viewFingerprint(view: ResolvedView): string {
  return stableJson({ ...view, local: view.local.map((t) => t.name) });
}

/** Whether a view publishes its servers' tools with their server's name in front (ResolvedView.prefixed). Pure. */
export function viewPrefixes(view: Pick<ResolvedView, 'prefixed' | 'servers'>): boolean {
  return view.prefixed ?? view.servers.length > 1;
}
