import * as z from 'zod';
import { serveCodeSchema } from './serve-code-schema.js';
import { EXPOSURE_TEXT, exposureSchema, isHttpUrl, templated, tokenBudgetSchema } from './schema-parts.js';
import { conditionsSchema } from './conditions-schema.js';

/**
 * `serve --http` as an OAuth protected resource (MCP 2025-11-25 authorization, RFC 9728): it
 * publishes its metadata, challenges with WWW-Authenticate, and accepts access tokens issued by
 * `issuer` for it (JWTs checked against the issuer's keys, or token introspection).
 */
export const serveAuthSchema = z.strictObject({
  issuer: templated(isHttpUrl, 'issuer must be an http(s) URL').describe(
    'The authorization server (its issuer URL; its metadata names the keys and endpoints).',
  ),
  resource: templated(isHttpUrl, 'resource must be an http(s) URL')
    .optional()
    .describe(
      "This server's public base URL, e.g. https://mcp.example.com (default: the address it listens on). Tokens must be issued for it or for the route's URL.",
    ),
  scopes: z
    .array(z.string().min(1))
    .optional()
    .describe('Scopes that open /mcp (any one of them); views may name their own (tool_views.NAME.scopes). Default: none needed.'),
  jwks_uri: templated(isHttpUrl, 'jwks_uri must be an http(s) URL').optional().describe("Where the issuer's signing keys are (default: from its metadata)."),
  introspection: z
    .strictObject({
      url: templated(isHttpUrl, 'introspection.url must be an http(s) URL')
        .optional()
        .describe("Token introspection endpoint (RFC 7662; default: from the issuer's metadata)."),
      client_id: z.string().min(1).describe("mcpkit's client ID at the authorization server."),
      client_secret: z.string().min(1).describe('Its secret; use ${VAR}.'),
    })
    .optional()
    .describe('Check tokens that are not JWTs by asking the authorization server.'),
});

const RATE_TEXT = /^\s*\d+(?:\.\d+)?\s*\/\s*(s|sec|second|m|min|minute)\s*$/;
const rateSchema = z
  .string()
  .regex(RATE_TEXT, 'a rate is N/s or N/min, e.g. 5/s or 30/min')
  .refine((text) => Number.parseFloat(text) > 0, 'a rate must be more than 0')
  .describe('Calls allowed: N/s or N/min (a token bucket whose burst is the rate per second, at least 1).');

/** Whether every "{" of a glob is closed (the glob compiler refuses it otherwise); a backslash escapes one. */
function bracesBalance(glob: string): boolean {
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && depth > 0) depth--;
  }
  return depth === 0;
}

/** A rule of a client's `tools`: "+ GLOB" allows, "- GLOB" refuses, first match wins (or { include } / { exclude } as in filters). */
const clientToolRuleSchema = z.union([
  z
    .string()
    .regex(/^\s*[+-]\s+\S/, 'a rule is "+ GLOB" (allow) or "- GLOB" (refuse), e.g. "+ github__*" or "- *"')
    .refine(bracesBalance, 'a "{" of the glob is not closed with "}"'),
  z.strictObject({ include: z.string().min(1) }),
  z.strictObject({ exclude: z.string().min(1) }),
]);

/** An instant with its zone, e.g. 2026-12-28T10:00:00.000Z: what `clients --expires` and `--grace` write. */
const isoTime = z.iso.datetime({ offset: true });
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lower-case hex digits (mcpkit clients rotate writes it)');

/** One named client of serve --http: how it is recognised, where it may go, what it may call, how fast. */
export const serveClientSchema = z
  .strictObject({
    token: z.string().min(1).optional().describe('Its bearer token; use ${VAR}. Each client needs its own.'),
    token_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'token_sha256 is the SHA-256 of the token, 64 lower-case hex digits (mcpkit clients add writes it)')
      .optional()
      .describe('Or: the SHA-256 (hex) of its bearer token, as "mcpkit clients add" and "clients rotate" write it: the config holds no token.'),
    token_expires: isoTime
      .optional()
      .describe('When its token (token or token_sha256) stops working: an ISO time, as "clients add --expires 30d" writes it (default: never).'),
    previous_token_sha256: sha256Hex
      .optional()
      .describe('The SHA-256 of its token before "clients rotate --grace": it keeps working until previous_token_until, then is refused.'),
    previous_token_until: isoTime.optional().describe('Until when previous_token_sha256 keeps working: an ISO time ("clients rotate --grace 10m" writes it).'),
    subject: z.string().min(1).optional().describe('Or: the "sub" of its OAuth access tokens (serve.auth).'),
    claims: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe('Or: claims its OAuth access tokens carry, all of them (e.g. { azp: ci-bot }).'),
    views: z.array(z.string().min(1)).optional().describe('The routes it may use: view names, and "default" for /mcp (default: every route).'),
    tools: z
      .array(clientToolRuleSchema)
      .optional()
      .describe('Rules over the published tool names, first match wins: "+ GLOB" allows, "- GLOB" refuses (default: every tool of its routes).'),
    read_only: z.boolean().optional().describe("Only tools that declare readOnlyHint (mcpkit's own read-only policy)."),
    rate: rateSchema.optional(),
    max_concurrent: z.int().positive().optional().describe('Most calls in flight at once.'),
    conditions: conditionsSchema.optional(),
    credentials: z
      .record(
        z.string(),
        z.strictObject({
          env: z.record(z.string(), z.string()).optional().describe("A stdio server's environment for this client (over its own entry's); use ${VAR}."),
          headers: z.record(z.string(), z.string()).optional().describe("A remote server's headers for this client (over its own entry's); use ${VAR}."),
        }),
      )
      .optional()
      .describe(
        "This client's own identity at upstream servers, by server name: its calls to such a server go over a connection of its own, made with these. A server with per_client: true is refused to a client without them.",
      ),
  })
  .refine((c) => c.token !== undefined || c.token_sha256 !== undefined || c.subject !== undefined || c.claims !== undefined, {
    message: 'a client needs a token (or token_sha256), or a subject or claims of its OAuth tokens (serve.auth)',
  })
  .refine((c) => c.token_expires === undefined || c.token !== undefined || c.token_sha256 !== undefined, {
    message: 'token_expires is for a token (or token_sha256); OAuth tokens carry their own expiry',
  })
  .refine((c) => (c.previous_token_sha256 === undefined) === (c.previous_token_until === undefined), {
    message: 'previous_token_sha256 and previous_token_until go together (mcpkit clients rotate NAME --grace 10m writes both)',
  })
  .refine((c) => c.token === undefined || c.token_sha256 === undefined, {
    message: 'a client has a token or a token_sha256, not both: keep the one it uses (mcpkit clients rotate NAME issues a new one)',
  });

/** Limits on what serve sends one upstream server, whoever calls. */
export const upstreamLimitSchema = z.strictObject({
  max_concurrent: z.int().positive().optional().describe('Most calls in flight to it at once.'),
  rate: rateSchema.optional(),
  queue_ms: z.int().min(0).optional().describe('How long a call waits for a place before it is refused with RATE_LIMITED (default 0: at once).'),
});

export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** serve.store: where replicas of serve --http share their state (store/shared-store.ts). */
export const storeSchema = z
  .strictObject({
    url: z
      .string()
      .refine(
        (value) => value.includes('${') || /^rediss?:\/\/[^/\s]/.test(value),
        'url is redis://HOST:PORT[/DB] or rediss:// (TLS), e.g. redis://127.0.0.1:6379/0',
      )
      .describe('The Redis (or Valkey) server: redis://[:PASSWORD@]HOST:PORT[/DB], or rediss:// for TLS; use ${VAR} for a password.'),
    key: z
      .string()
      .optional()
      .describe(
        'The secret every replica signs what it tells the others with (passed calls, answers, cancels, approvals, task records): at least 32 random characters, the same on every replica, from the environment, e.g. "${MCPKIT_STORE_KEY}" (make one: openssl rand -base64 32). serve --http with a store does not start without it.',
      ),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'a prefix is letters, digits and "_", ".", ":", "-" (up to 64)')
      .optional()
      .describe('What every key starts with (default "mcpkit"): several gateways may share one store under prefixes of their own.'),
    lease_ms: z
      .int()
      .min(1000)
      .optional()
      .describe("How long a replica's places in flight and running tasks outlive it, unrenewed (default 15000): then they are freed, and its tasks failed."),
    required: z
      .boolean()
      .optional()
      .describe('false: serve starts even when the store cannot be reached (limited calls are refused until it answers); default true: it stops, saying why.'),
  })
  .describe(
    'Where several "serve --http" replicas share the limits of named clients and upstreams (rate: 3/min is 3 across all of them). Without it, each keeps its own, at no cost.',
  );

/** The `serve` section: how `mcpkit serve` listens, who may use it, what it offers and records. */
export const serveSchema = z.strictObject({
  host: z.string().optional().describe('Address for "serve --http" (default 127.0.0.1).'),
  port: z.int().min(0).max(65535).optional().describe('Port for "serve --http" (default 8000).'),
  token: z.string().min(1).optional().describe('Bearer token required by "serve --http"; use ${VAR}.'),
  allowed_origins: z
    .array(z.string().regex(/^https?:\/\/[^/]+$/, 'an origin is scheme://host[:port], e.g. https://app.example.com'))
    .optional()
    .describe('Browser origins allowed by "serve --http" besides loopback ones (others get 403).'),
  max_body_bytes: z.int().positive().optional().describe('Largest request body "serve --http" reads (default 4 MiB; larger gets 413).'),
  session_idle_ms: z.int().positive().optional().describe('An HTTP session unused this long is ended (default 1800000, 30 minutes).'),
  keyring_poll_ms: z
    .int()
    .min(0)
    .optional()
    .describe(
      'How often serve reads the ${keyring:NAME} secrets the config uses again; the servers whose secret changed restart their connections (default 30000; 0: only on SIGHUP).',
    ),
  replica_id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'a replica id is 1-32 lower-case letters, digits and dashes')
    .optional()
    .describe(
      'This "serve --http" among several behind a load balancer: its 2025 session ids start with "ID." so the balancer can send a session to the replica that has it (docs/deploy/nginx.conf). Usually "${REPLICA_ID}", set per replica.',
    ),
  list_from_lock: z
    .boolean()
    .optional()
    .describe(
      'While a server starts, tools/list answers with the tools the lock file approves for it (pinning: enforce) instead of waiting for it; its live listing follows, with list_changed where what is served differs. A call still waits for its server. Default false: a listing shows what the servers list now.',
    ),
  eager: z
    .boolean()
    .optional()
    .describe(
      "Start the upstream servers when serve starts, so that its first tools/list does not wait for them: over --http every enabled server, and \"listening\" is said once they are connected (or after serve.start_wait_ms); over stdio the served view's, as the client's opening request is read, with the connections it uses (its era's; its own, once it is connected, when it declares sampling, elicitation or roots), so each starts once. Default true; false (or serve --no-eager): each server starts on first use.",
    ),
  start_wait_ms: z
    .int()
    .min(0)
    .optional()
    .describe(
      'How long "serve --http" waits at start for the servers it starts (serve.eager) before it says it listens; those still starting are named, and a listing waits only for them (default 5000).',
    ),
  max_sessions: z.int().positive().optional().describe('Most HTTP sessions at once; a new one ends the least recently used (default 1000).'),
  send_timeout_ms: z
    .int()
    .positive()
    .optional()
    .describe(
      'An HTTP response or stream whose client takes none of what waits for it this long is cut (default 30000; a slow reader that keeps reading is not).',
    ),
  max_send_buffer_bytes: z
    .int()
    .positive()
    .optional()
    .describe('An HTTP stream still holding more than this unsent when more is written to it is cut (default 16777216, 16 MiB).'),
  max_client_hubs: z
    .int()
    .min(0)
    .optional()
    .describe(
      "Most clients whose own connections (and server processes) are awake at once; a client that declares sampling, elicitation or roots gets connections of its own, and past this number the least recently used idle client's are closed until its next request (default 10; each stdio server process is about 70 MiB).",
    ),
  audit_log: z
    .string()
    .min(1)
    .optional()
    .describe('Append one JSON line per tools/call, prompts/get and resources/read to this file (relative to this file; 0600). "mcpkit stats" reads it.'),
  tracing: z
    .boolean()
    .optional()
    .describe(
      'Send OpenTelemetry traces over OTLP/HTTP (default: when OTEL_EXPORTER_OTLP_ENDPOINT is set; the endpoint and headers come from the OTEL_* variables).',
    ),
  metrics: z.boolean().optional().describe('Count calls and serve GET /metrics over HTTP (default true).'),
  open_routes: z
    .array(
      z
        .string()
        .regex(
          /^(\/mcp|\/views|\/health|\/metrics|\/view\/[A-Za-z0-9][A-Za-z0-9_.-]*\/mcp|\/views\/[A-Za-z0-9][A-Za-z0-9_.-]*)$/,
          'a route is /mcp, /views, /health, /metrics, /view/NAME/mcp or /views/NAME',
        ),
    )
    .optional()
    .describe(
      'Routes of "serve --http" served without a credential even when another route needs one (once any route is protected by serve.token, serve.auth or a view\'s tokens, every route not named here needs a credential).',
    ),
  metrics_public: z
    .boolean()
    .optional()
    .describe('Serve GET /metrics without the token or OAuth the other routes need (default false), for a Prometheus that cannot send one.'),
  audit_arguments: z.boolean().optional().describe('Also record the arguments of each call, secrets masked (default false: never).'),
  audit_max_bytes: z.int().positive().optional().describe('Rotate the audit log when it would grow past this (default 10485760, 10 MiB).'),
  audit_keep: z.int().min(0).max(100).optional().describe('Rotated audit logs kept, PATH.1 to PATH.N (default 5).'),
  exposure: exposureSchema.optional().describe(`How views that do not set theirs, and the default one, list tools. ${EXPOSURE_TEXT}`),
  token_budget: tokenBudgetSchema
    .optional()
    .describe('Most tokens (bytes/4) a tools/list may cost under exposure auto, for views that do not set theirs (default 4000).'),
  pin: z.array(z.string().min(1)).optional().describe('Tools the default view (serve without --view) always lists directly.'),
  code: serveCodeSchema.optional(),
  groups: z.array(z.string().min(1)).optional().describe("mcpkit's own tool groups serve offers (default all), as serve --groups; e.g. [retrieve, registry]."),
  auth: serveAuthSchema
    .optional()
    .describe('Protect "serve --http" with OAuth access tokens (MCP authorization): a protected resource of the named authorization server.'),
  agent_commands: z
    .enum(['ask', 'allow', 'deny'])
    .optional()
    .describe(
      'When an agent asks over MCP for a command to be run (server_add or server_import of a stdio server, registry_add, server_test or server_login of a server an agent added): ask the person through the client (default; refused where the client cannot ask), allow without asking (a prompt-injected agent can then run any command as you), or deny.',
    ),
  store: storeSchema.optional(),
  clients: z
    .record(z.string().regex(CLIENT_NAME, 'a client name is letters, digits, "_", "." and "-" (up to 64)'), serveClientSchema)
    .optional()
    .describe(
      'Named clients of "serve --http": each is recognised by its token (or OAuth subject or claims) and gets its routes, tool rules and limits; the audit log and /metrics name it.',
    ),
  upstream_limits: z
    .record(z.string(), upstreamLimitSchema)
    .optional()
    .describe('Per server: most calls at once and per second that serve sends it, whoever calls; more wait up to queue_ms, then RATE_LIMITED.'),
  tasks: z
    .strictObject({
      after_ms: z
        .int()
        .min(0)
        .optional()
        .describe(
          'A tools/call of a client that declares the tasks extension, not done by then, is answered with a task and runs on (default 500; 0: at once).',
        ),
      tools: z.record(z.string().min(1), z.int().min(0)).optional().describe('after_ms per published tool name (globs, first match), e.g. { "build_*": 0 }.'),
      required: z
        .array(z.string().min(1))
        .optional()
        .describe('Tools (globs) that run only as tasks: a client that does not declare the extension is refused with -32021.'),
      max_ttl_ms: z.int().positive().optional().describe("How long a task and its result are kept (the client's ttl, at most this; default 3600000, an hour)."),
      max_per_client: z.int().positive().optional().describe('Most tasks one client holds at once; past it a call is answered when it ends (default 100).'),
      max_result_bytes: z.int().positive().optional().describe("Most bytes of results one client's tasks keep (default 16777216, 16 MiB)."),
    })
    .optional()
    .describe('serve as the task host (io.modelcontextprotocol/tasks, SEP-2663) for 2026-07-28 clients over HTTP: a slow call becomes a task.'),
  host_tools_without_auth: z
    .boolean()
    .optional()
    .describe('Offer the tools that write the config or start processes over HTTP even without a token (default false).'),
});
