import * as z from 'zod';
import { conditionsSchema } from './conditions-schema.js';
import { crossReferenceIssues } from './schema-references.js';
import { PIN_MODES } from './defaults.js';
import { codeSettingsSchema, EXPOSURE_TEXT, exposureSchema, isHttpUrl, name, serverName, templated, tokenBudgetSchema } from './schema-parts.js';
import { serveSchema } from './serve-schema.js';
import { filterRuleSchema, serverSchema, toolOverrideSchema } from './server-schema.js';

export { isHttpUrl } from './schema-parts.js';
export { serveAuthSchema, serveSchema } from './serve-schema.js';
export { filterRuleSchema, serverAuthSchema, serverSchema, toolOverrideSchema } from './server-schema.js';

/**
 * The whole config file. Every object is strict, nested ones too, so a typo (`serve: { tokn: x }`)
 * is reported rather than ignored: a setting that silently does nothing can be a token that is
 * silently not required. Only a composite's `inputs`, which is a JSON Schema, is open.
 */
export const hooksSchema = z.strictObject({
  pre_call: z.string().min(1).optional().describe('JS module exporting pre_call(args, ctx); path relative to this file.'),
  post_call: z.string().min(1).optional().describe('JS module exporting post_call(result, args, ctx); path relative to this file.'),
});

const compositeStepSchema = z.strictObject({
  tool: z.string().min(1).describe('server.tool (as the server publishes it) or an mcpkit tool name.'),
  args: z.record(z.string(), z.unknown()).optional().describe('Arguments; "{inputs.x}" and "{steps.NAME.result...}" are filled in.'),
});

export const compositeSchema = z
  .strictObject({
    description: z.string().optional(),
    inputs: z.looseObject({}).optional().describe("JSON Schema of the composite tool's arguments."),
    parallel: z.record(z.string(), compositeStepSchema).optional().describe('Steps run at once; a failing step yields { error }.'),
    chain: z
      .array(
        compositeStepSchema.extend({
          name: z
            .string()
            .regex(/^[A-Za-z0-9_-]+$/)
            .optional(),
        }),
      )
      .min(1)
      .optional()
      .describe('Steps run in order; later ones may use {steps.NAME.result}.'),
  })
  .superRefine((c, ctx) => {
    if ((c.parallel === undefined) === (c.chain === undefined))
      ctx.addIssue({ code: 'custom', message: 'a composite tool has either parallel or chain steps' });
  });

/** A view's selection of one server's tools, on top of the server's own rules. */
export const viewServerSchema = z.strictObject({
  tools: z.record(z.string(), toolOverrideSchema.nullable()).optional().describe("Allow-list of the server's (published) tool names, with overrides."),
  overrides: z
    .record(z.string(), toolOverrideSchema)
    .optional()
    .describe("Renames, descriptions and hiding of the server's (published) tools, without an allow-list."),
  filter: z.array(filterRuleSchema).optional().describe('Ordered include/exclude globs; the first match wins.'),
});

export const viewSchema = z.strictObject({
  description: z.string().optional(),
  exposure: exposureSchema.optional().describe(EXPOSURE_TEXT),
  token_budget: tokenBudgetSchema
    .optional()
    .describe("Most tokens (bytes/4) the view's tools/list may cost under exposure auto (default: serve.token_budget, else 4000)."),
  pin: z.array(z.string().min(1)).optional().describe('Tools listed directly whatever the exposure, by the name the view publishes them under.'),
  code: codeSettingsSchema.optional(),
  servers: z
    .union([z.array(serverName()), z.record(serverName(), viewServerSchema.nullable())])
    .optional()
    .describe('Servers in the view: a list of names (all their tools), or names with a per-view tool selection.'),
  groups: z.array(z.string()).optional().describe('mcpkit tool groups to include (e.g. retrieve, registry).'),
  tools: z.array(z.string()).optional().describe('Individual mcpkit tools to include, by MCP name.'),
  separator: z.string().nullable().optional().describe('Between server and tool name when several servers are in the view (default "__"); null for none.'),
  tokens: z
    .array(z.string().min(1))
    .optional()
    .describe('Bearer tokens allowed to use this view over HTTP (present, even empty, the view is protected, and so is every route not in serve.open_routes).'),
  scopes: z
    .array(z.string().min(1))
    .optional()
    .describe('With serve.auth: OAuth scopes that open this view over HTTP (any one of them; default serve.auth.scopes).'),
  hooks: hooksSchema.optional(),
  read_only: z
    .boolean()
    .optional()
    .describe("Serve only tools that declare readOnlyHint: true, mcpkit's own and the servers' (as serve --read-only does for every view)."),
  conditions: conditionsSchema.optional(),
});

export const configSchema = z
  .strictObject({
    mcp_servers: z.record(serverName(), serverSchema).default({}),
    tool_views: z.record(name('View'), viewSchema).default({}),
    composite_tools: z.record(name('Composite tool'), compositeSchema).default({}),
    hooks: hooksSchema.default({}),
    pinning: z
      .enum(PIN_MODES)
      .optional()
      .describe(
        'Tool pinning (default enforce): a tool whose definition differs from the one approved in the lock file beside this config is withheld (enforce), served with a warning (warn), or not checked (off).',
      ),
    registry: z
      .strictObject({
        default: z
          .string()
          .optional()
          .describe('Registry used when a call names none (default: pulsemcp when PULSEMCP_SUBREGISTRY_API_KEY is set, else official).'),
        sources: z
          .record(
            name('Registry'),
            z.strictObject({
              url: templated(isHttpUrl, 'url must be an http(s) URL')
                .optional()
                .describe('Base URL (the API lives under /v0.1); optional for the built-in official and pulsemcp.'),
              api_key: z.string().optional().describe('Sent as X-API-Key; use ${VAR}.'),
              tenant_id: z.string().optional().describe('Sent as X-Tenant-ID.'),
            }),
          )
          .optional()
          .describe('Named registries besides (or overriding) the built-in official and pulsemcp.'),
        timeout_ms: z.int().positive().optional().describe('Timeout of one registry request (default 30000).'),
        retries: z.int().min(0).max(10).optional().describe('Retries on 429, 5xx and network errors (default 3).'),
        max_response_bytes: z.int().positive().optional().describe('Largest registry answer read, after decompression (default 20 MiB).'),
        max_pages: z.int().positive().optional().describe('Most pages "registry list --all" follows (default 100).'),
        max_bundle_bytes: z
          .int()
          .positive()
          .optional()
          .describe("Most bytes an mcpb bundle's files may take unpacked (default 512 MiB), counted as they are written: a zip bomb stops there."),
        show_admin_tools: z.boolean().optional().describe('Serve switch_tenant_id over MCP (also SHOW_ADMIN_TOOLS=true).'),
      })
      .default({}),
    arango: z
      .strictObject({
        url: z
          .union([z.string(), z.array(z.string()).min(1)])
          .optional()
          .describe('ArangoDB endpoint, or a list of cluster coordinators (default http://localhost:8529; ARANGO_URL overrides).'),
        database: z.string().min(1).optional().describe('Database (default _system; ARANGO_DB overrides).'),
        username: z.string().optional().describe('User (default root; ARANGO_USERNAME overrides).'),
        password: z.string().optional().describe('Password; use ${VAR} (ARANGO_PASSWORD overrides).'),
        timeout_ms: z.int().positive().optional().describe('Timeout of one database call (default 30000; ARANGO_TIMEOUT_SEC overrides).'),
        connect_retries: z.int().min(1).max(100).optional().describe('Connection attempts when serve starts (default 5).'),
        connect_delay_ms: z.int().min(0).optional().describe('Delay between those attempts (default 2000).'),
        read_only: z.boolean().optional().describe('Hide the writing arango tools and refuse AQL that writes (also serve --read-only).'),
        backup_dir: z
          .string()
          .min(1)
          .optional()
          .describe(
            'The only folder backups are written to and restored from (default $XDG_STATE_HOME/mcpkit/backups; relative to this file; ARANGO_BACKUP_DIR overrides).',
          ),
      })
      .default({}),
    retrieve: z
      .strictObject({
        roots: z
          .record(
            name('Root'),
            z.union([
              z.string(),
              z.strictObject({
                path: z.string().describe('The folder (relative to this file).'),
                hidden: z
                  .boolean()
                  .optional()
                  .describe('Agents may read dotfiles and what .gitignore ignores here too (default false: refused over MCP, as listings leave them out).'),
              }),
            ]),
          )
          .optional()
          .describe(
            "Named roots the retrieve tools read, e.g. { docs: ./docs, code: . } (relative to this file). Without any, a terminal reads its working directory and serve this file's folder (none without a project config file).",
          ),
        max_file_bytes: z
          .int()
          .positive()
          .optional()
          .describe('Larger files are cut by open_file and left out of smart_search (default 1 MiB); search reads files of any size.'),
        timeout_ms: z
          .int()
          .positive()
          .optional()
          .describe('Longest a search, find or smart search may run before it stops with TIMEOUT (default over MCP 30000; in a terminal none).'),
      })
      .default({}),
    daemon: z
      .union([
        z.literal('auto').transform(() => ({ auto: true })),
        z.strictObject({
          auto: z
            .boolean()
            .optional()
            .describe('The first terminal command that can use the daemon starts it in the background (default false: "mcpkit daemon start").'),
          idle_minutes: z.number().positive().optional().describe('The daemon exits after this many minutes without a request (default 30).'),
        }),
      ])
      .default({})
      .describe('mcpkit daemon: a warm process for the terminal commands of this config ("daemon: auto" is short for "daemon: { auto: true }").'),
    serve: serveSchema.default({}),
  })
  // The cross-references are checked even where another part of the file is wrong, so `config
  // validate` says every problem at once (each part read only where it has the shape it needs).
  .superRefine(
    (raw, ctx) => crossReferenceIssues(raw as unknown as Record<string, unknown>, (path, message) => ctx.addIssue({ code: 'custom', path, message })),
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value) },
  );

/**
 * The config as tools see it. `unusable` names the parts that had problems (a server, a view, a
 * section: `mcp_servers.github`, `arango`), with their "path: message" lines: they were set
 * aside so that the rest still works, and whoever uses one reports why it cannot.
 */
export type McpkitConfig = z.output<typeof configSchema> & {
  readonly unusable?: Readonly<Record<string, readonly string[]>>;
  /**
   * The environment variables the file's `${VAR}` placeholders name (read from the parsed file, so
   * an escaped `\u0024{VAR}` counts): all of them, and each server entry's own. What a daemon
   * compares with its callers, and what no other server is given (config/server-env.ts).
   */
  readonly references?: {
    readonly all: readonly string[];
    readonly servers: Readonly<Record<string, readonly string[]>>;
    /** By the part of the config they stand in (config/check/check.ts problemUnit: `serve`, `serve.http`, `tool_views.NAME`, ...). */
    readonly units?: Readonly<Record<string, readonly string[]>>;
  };
};
export type ServerConfig = z.output<typeof serverSchema>;
export type ViewConfig = z.output<typeof viewSchema>;
export type CompositeConfig = z.output<typeof compositeSchema>;

/** A composite's steps: a chain's in order, or the parallel ones. Pure. */
export function compositeSteps<S extends { tool: string }>(spec: { parallel?: Record<string, S> | undefined; chain?: S[] | undefined }): S[] {
  return spec.parallel ? Object.values(spec.parallel) : (spec.chain ?? []);
}
export type HookConfig = z.output<typeof hooksSchema>;
export type ToolOverride = z.output<typeof toolOverrideSchema>;
/** A server's own tool rules (mcp_servers.NAME) or a view's selection of them (tool_views.V.servers.NAME). */
export type ServerShaping = z.output<typeof viewServerSchema>;

/**
 * How a config is parsed: a process parses it once or twice, and zod 4 compiles each object's
 * parser (`new Function`) at its first parse, which for the config's many objects cost more than
 * parsing without (bench: about half the first parse's time). Schemas parsed on every message (the
 * SDK's) keep their compiled parsers: this goes only to the parses given it.
 */
export const ONCE = { jitless: true } as const;

export function defaultConfig(): McpkitConfig {
  return configSchema.parse({}, ONCE);
}
