import { join } from 'node:path';

/**
 * The value each optional setting takes when the config leaves it out: one table that the code
 * reading a setting and `config show --resolved` both use, so what is shown is what applies.
 * Settings whose default depends on the environment (registry.default, arango.backup_dir) are
 * filled in by `withDefaults` from the values given to it. Pure.
 */
export const SETTING_DEFAULTS = {
  registry: {
    timeout_ms: 30_000,
    retries: 3,
    max_response_bytes: 20 * 1024 * 1024,
    max_pages: 100,
    show_admin_tools: false,
    /** An mcpb bundle's files, unpacked (the download itself is capped at registry/mcpb.ts MAX_BUNDLE_BYTES). */
    max_bundle_bytes: 512 * 1024 * 1024,
  },
  arango: {
    url: 'http://localhost:8529',
    database: '_system',
    username: 'root',
    timeout_ms: 30_000,
    connect_retries: 5,
    connect_delay_ms: 2000,
    read_only: false,
  },
  retrieve: {
    max_file_bytes: 1024 * 1024,
    /** Over MCP; a terminal has no budget (Ctrl-C stops a slow search). */
    timeout_ms: 30_000,
  },
  serve: {
    host: '127.0.0.1',
    port: 8000,
    max_body_bytes: 4 * 1024 * 1024,
    session_idle_ms: 30 * 60_000,
    max_sessions: 1000,
    max_client_hubs: 10,
    send_timeout_ms: 30_000,
    max_send_buffer_bytes: 16 * 1024 * 1024,
    host_tools_without_auth: false,
    agent_commands: 'ask',
    exposure: 'auto',
    token_budget: 4000,
    metrics: true,
    metrics_public: false,
  },
} as const;

/** mcpkit daemon exits after this many minutes without a request, unless daemon.idle_minutes says otherwise. */
export const DAEMON_IDLE_MINUTES = 30;

/** How a view lists its tools (src/proxy/catalog/exposure.ts). */
export const EXPOSURES = ['auto', 'direct', 'search', 'code'] as const;
export type Exposure = (typeof EXPOSURES)[number];

/** The range a token budget may take (serve.token_budget, a view's token_budget, --token-budget). */
export const TOKEN_BUDGET_RANGE = { min: 500, max: 1_000_000 } as const;

/** An upstream server's call timeout when mcp_servers.NAME.timeout_ms is not set. */
export const SERVER_TIMEOUT_MS = 60_000;
/** The longest a tool call may run, progress or not (mcp_servers.NAME.max_total_ms). */
export const SERVER_MAX_TOTAL_MS = 600_000;
/** The largest message read from a stdio server, as the SDK's own default (mcp_servers.NAME.max_message_bytes). */
export const SERVER_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

type Section = keyof typeof SETTING_DEFAULTS;

/** mcpkit's own state (backups, OAuth logins): $XDG_STATE_HOME/mcpkit, else ~/.local/state/mcpkit. */
export function stateDir(env: NodeJS.ProcessEnv, home: string): string {
  const state = env.XDG_STATE_HOME && env.XDG_STATE_HOME.trim() !== '' ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(state, 'mcpkit');
}

/** mcpkit's cache folder: $XDG_CACHE_HOME/mcpkit, else ~/.cache/mcpkit (bundles, boxes' npm caches, tool listings). */
export function cacheDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(env.XDG_CACHE_HOME?.trim() || join(home, '.cache'), 'mcpkit');
}

/** Where backups go without arango.backup_dir or ARANGO_BACKUP_DIR: $XDG_STATE_HOME/mcpkit/backups. */
export function defaultBackupDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(stateDir(env, home), 'backups');
}

/** Where `mcpkit stats` looks when neither --audit-log nor serve.audit_log names a log: `$XDG_STATE_HOME/mcpkit/audit.jsonl`. */
export function defaultAuditLog(env: NodeJS.ProcessEnv, home: string): string {
  return join(stateDir(env, home), 'audit.jsonl');
}

/** Defaults computed from the environment, given by the caller (keeps this module pure). */
export interface ComputedDefaults {
  registryDefault: string;
  backupDir: string;
}

/**
 * The config with every unset setting of the settings sections filled in; set values win.
 * Server, view and composite entries are left as written (their defaults are per entry).
 */
export function withDefaults<T extends Partial<Record<Section, object>>>(config: T, computed: ComputedDefaults): T {
  const out: Record<string, unknown> = { ...config };
  const extra: Record<Section, Record<string, unknown>> = {
    registry: { default: computed.registryDefault },
    arango: { backup_dir: computed.backupDir },
    retrieve: {},
    serve: {},
  };
  for (const section of Object.keys(SETTING_DEFAULTS) as Section[]) {
    const written = (config[section] ?? {}) as Record<string, unknown>;
    const filled: Record<string, unknown> = { ...SETTING_DEFAULTS[section], ...extra[section] };
    for (const [key, value] of Object.entries(written)) if (value !== undefined) filled[key] = value;
    out[section] = filled;
  }
  return out as T;
}

/**
 * The MCP revisions mcpkit speaks to an upstream (`mcp_servers.NAME.protocol`): `auto` probes with
 * server/discover and falls back to the 2025 handshake; a revision pins it (a pin never falls back).
 */
/** Tool pinning: `enforce` (default) withholds a new or changed tool until approved; `warn` serves it and tells; `off` pins nothing. */
export const PIN_MODES = ['enforce', 'warn', 'off'] as const;
export type PinMode = (typeof PIN_MODES)[number];
/** Tool pinning where neither the server's entry nor the top level sets it. */
export const DEFAULT_PIN_MODE: PinMode = 'enforce';

export const PROTOCOL_CHOICES = ['auto', '2026-07-28', '2025-11-25'] as const;
export type ProtocolChoice = (typeof PROTOCOL_CHOICES)[number];
