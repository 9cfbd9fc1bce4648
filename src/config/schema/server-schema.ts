import * as z from 'zod';
import { PIN_MODES, PROTOCOL_CHOICES } from './defaults.js';
import { registryProvenanceSchema, isHttpUrl, templated } from './schema-parts.js';

/**
 * One server's entry (mcp_servers.NAME): how it is started or reached, how mcpkit logs in to it,
 * and its own tool rules. Strict, as the whole file is (./schema.ts).
 */
export const toolOverrideSchema = z.strictObject({
  description: z.string().optional().describe('Replaces the upstream description; {original} stands for the upstream text.'),
  name: z.string().optional().describe('Name to expose instead of the upstream name.'),
  enabled: z.boolean().optional().describe('false hides the tool.'),
});

export const filterRuleSchema = z.union([
  z.strictObject({ include: z.string().min(1).describe('Glob of tool names to allow.') }),
  z.strictObject({ exclude: z.string().min(1).describe('Glob of tool names to hide.') }),
]);

/**
 * How mcpkit logs in to a protected remote server (OAuth 2.1, MCP authorization). `oauth` alone
 * discovers and registers everything; the fields are for servers that need a pre-registered
 * client or a client ID metadata document.
 */
export const serverAuthSchema = z.union([
  z.literal('oauth'),
  z.strictObject({
    type: z.literal('oauth'),
    client_id: z.string().min(1).optional().describe('A client registered beforehand with the authorization server (otherwise mcpkit registers itself).'),
    client_secret: z.string().min(1).optional().describe('Its secret, for a confidential client; use ${VAR}.'),
    scopes: z.array(z.string().min(1)).optional().describe('Scopes to ask for when the server does not say which it needs.'),
    client_metadata_url: templated((value) => value.startsWith('https://'), 'client_metadata_url must be an https URL')
      .optional()
      .describe('An https URL of a client ID metadata document, used as client_id by authorization servers that support them.'),
  }),
]);

export const serverSchema = z
  .strictObject({
    description: z.string().optional(),
    command: z.string().min(1).optional().describe('Executable of a stdio server.'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: templated(isHttpUrl, 'url must be an http(s) URL').optional().describe('Endpoint of a remote server.'),
    headers: z.record(z.string(), z.string()).optional(),
    auth: serverAuthSchema.optional().describe('oauth: log in with "mcpkit server login NAME"; tokens are kept outside the config.'),
    transport: z.enum(['auto', 'stdio', 'http', 'sse']).optional(),
    protocol: z
      .enum(PROTOCOL_CHOICES)
      .optional()
      .describe('MCP revision to speak: auto (default) probes with server/discover and falls back to 2025-11-25; a revision pins it.'),
    tools: z.record(z.string(), toolOverrideSchema.nullable()).optional().describe('Allow-list of tools with optional overrides.'),
    overrides: z
      .record(z.string(), toolOverrideSchema)
      .optional()
      .describe('Renames, descriptions and hiding of tools by their upstream names, without an allow-list: every other tool still passes.'),
    filter: z.array(filterRuleSchema).optional().describe('Ordered include/exclude globs; the first match wins.'),
    disabled: z.boolean().optional(),
    per_client: z
      .boolean()
      .optional()
      .describe(
        'Over "serve --http", reached only with each named client\'s own credentials (serve.clients.NAME.credentials.SERVER, or its login by "server login SERVER --as NAME"), never as the gateway: a caller without them is refused.',
      ),
    inherit_env: z
      .union([z.boolean(), z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'))])
      .optional()
      .describe(
        "Which of mcpkit's environment a stdio server gets besides its env: false (default): a small safe base (PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LC_*, TMPDIR, TZ); a list of names: the base and those; true: everything but mcpkit's own MCPKIT_* and the variables the rest of the config names.",
      ),
    sandbox: z
      .union([
        z.boolean(),
        z.strictObject({
          network: z.boolean().optional().describe('The host network (true), or none at all, loopback included (false, the default).'),
          read: z
            .array(z.string().min(1))
            .optional()
            .describe('Paths the server may read besides the system folders and what its command line names (~ is the home folder).'),
          write: z.array(z.string().min(1)).optional().describe('Paths the server may write.'),
        }),
      ])
      .optional()
      .describe(
        'Run this stdio server in a box (bubblewrap, Linux): no network, the system folders read-only, an empty home and /tmp, and only the paths named here. Refused, never run unboxed, where bubblewrap cannot be used; false runs it without a box on purpose.',
      ),
    limits: z
      .strictObject({
        memory_mb: z.int().positive().optional().describe('Most private memory (RLIMIT_DATA), in MiB: past it the server fails to allocate and dies alone.'),
        cpu_s: z.int().positive().optional().describe('Most CPU seconds.'),
        open_files: z.int().positive().optional().describe('Most open files.'),
        processes: z
          .int()
          .positive()
          .optional()
          .describe(
            'Most processes the server may run at once (RLIMIT_NPROC). In a box it counts the box alone (a user namespace of its own), so memory_mb x processes caps the whole server; the kernel does not enforce it for root.',
          ),
        tmp_mb: z
          .int()
          .positive()
          .optional()
          .describe("The size of a boxed server's /tmp, in MiB (default 64): it is memory, and counts against no other limit."),
      })
      .optional()
      .describe('Resource limits of a stdio server (prlimit; tmp_mb for a box).'),
    roots: z
      .literal('forward')
      .optional()
      .describe(
        "forward: a remote (HTTP) client's roots are offered to this server, as a stdio client's are. Left out, they are not: a remote client's roots name folders on its own machine, and a server here would take them as its own (server-filesystem reads what they name).",
      ),
    registry: registryProvenanceSchema.optional(),
    added_by: z
      .literal('agent')
      .optional()
      .describe(
        'Written by mcpkit when an agent added this server over MCP: a person approves each start from MCP (server_test, server_login). Remove it once you trust the entry.',
      ),
    pinning: z.enum(PIN_MODES).optional().describe('Tool pinning for this server (default: the top-level pinning, else enforce); see "mcpkit server diff".'),
    timeout_ms: z
      .int()
      .positive()
      .optional()
      .describe('How long a request may wait for the server (default 60000); progress the server reports restarts it for a tool call.'),
    max_total_ms: z.int().positive().optional().describe('The longest a tool call may run however much progress it reports (default 600000, 10 minutes).'),
    reconnect: z
      .strictObject({
        attempts: z
          .int()
          .min(1)
          .max(20)
          .optional()
          .describe('Reconnect attempts in a round before serve gives up until a call or a later listing (default 6).'),
        first_delay_ms: z.int().min(10).max(60_000).optional().describe('The wait before the first attempt, doubled for each next one (default 250).'),
        max_delay_ms: z.int().min(10).max(600_000).optional().describe('The longest wait between two attempts (default 10000).'),
      })
      // A first wait past the longest would be cut to the longest without a word.
      .refine((r) => r.first_delay_ms === undefined || r.first_delay_ms <= (r.max_delay_ms ?? 10_000), {
        message: 'first_delay_ms is longer than max_delay_ms (default 10000): raise max_delay_ms or shorten first_delay_ms',
        path: ['first_delay_ms'],
      })
      .optional()
      .describe(
        "How a long-running gateway (serve, the daemon) tries again to reach this server once it went down: a round of attempts, each wait doubled; a round that runs out is followed by another only at a call of its tools, or at a listing once a cool-down (the round's longest wait, doubled after each round that fails) has passed.",
      ),
    max_message_bytes: z
      .int()
      .positive()
      .optional()
      .describe(
        'Largest message read from a stdio server (default 10485760, 10 MiB); a larger answer fails its own request with an error, and the connection goes on.',
      ),
  })
  .superRefine((server, ctx) => {
    if (server.command === undefined && server.url === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a server needs either command (stdio) or url (remote)' });
    }
    if (server.command !== undefined && server.url !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'a server has either command or url, not both' });
    }
    for (const key of ['sandbox', 'limits', 'inherit_env'] as const) {
      if (server[key] !== undefined && server.command === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `${key} is for stdio servers (command)` });
    }
    if (server.auth !== undefined && server.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'auth is for remote servers (url); a stdio server gets its credentials from env' });
    }
  });
