import { EXPOSURES, SETTING_DEFAULTS, TOKEN_BUDGET_RANGE, type Exposure } from '../config/defaults.js';
import { createRuntime, readConfig, type Runtime } from '../app/runtime.js';
import type { McpkitConfig } from '../config/schema.js';
import type { Policy } from '../tool/context.js';
import { errorObject, exitCodeFor, field, ToolError, type Words } from '../core/errors.js';
import { serveStdio } from './stdio.js';
import { serveToken } from './serve-token.js';
import { httpSettingsOf } from './http-settings.js';
import { followConfig } from '../app/follow-config.js';
import { redact } from '../core/redact.js';
import type { HttpSettings } from './http.js';
import { CallQueue } from '../audit/call-queue.js';
import type { CallObserver } from '../audit/auditor.js';
import type { Logger } from '../core/logger.js';
import type { AuditStatus } from '../audit/audit-log.js';

export interface ServeOptions {
  configFlag?: string;
  view?: string;
  eager?: boolean;
  http?: boolean;
  host?: string;
  port?: string | number;
  token?: string;
  /** The variable holding the token (else MCPKIT_TOKEN): keeps it out of argv. */
  tokenEnv?: string;
  /** No tool with readOnlyHint: false is listed or callable, mcpkit's own or an upstream's. */
  readOnly?: boolean;
  /** Browser origins allowed over HTTP besides loopback ones. */
  allowOrigins?: string[];
  /** mcpkit's own groups to serve, comma-separated (else serve.groups, else all). */
  groups?: string;
  /** How every view lists its tools, whatever the config says. */
  exposure?: string;
  /** The token budget of exposure auto for every view. */
  tokenBudget?: string | number;
  /** Where the audit log goes (else serve.audit_log). */
  auditLog?: string;
  version: string;
}

/** Where serve's own lines go (stderr; a test in the same process collects them). */
export type Say = (line: string) => void;
const toStderr: Say = (line) => void process.stderr.write(`${line}\n`);

/** What `serve` runs on, whichever transport it serves: the runtime, following its config, and its observers. */
interface ServeCore {
  runtime: Runtime;
  calls: CallQueue;
  /** How the audit log stands, when there is one (for /health and /metrics). */
  audit?: () => AuditStatus;
  close(): Promise<void>;
}

/**
 * The runtime `serve` serves from: the policy decided from the flags and the config, the config
 * followed live, the audit log, tracing, each served group's start-up work. A failure closes what
 * was made and throws.
 */
async function startCore(options: ServeOptions, say: Say, logger?: Logger): Promise<ServeCore> {
  let runtime: Runtime | undefined;
  let stopFollowing: (() => void) | undefined;
  let auditor: Awaited<ReturnType<typeof openAudit>>;
  // What hears of every ended call: the audit log and the metrics, when they are on.
  const calls = new CallQueue();
  const close = async () => {
    stopFollowing?.();
    await runtime?.close();
    // After the upstreams: calls that ended while closing still get their line, and their spans are sent.
    calls.drain();
    await auditor?.close();
    await runtime?.tracing?.shutdown().catch(() => undefined);
  };
  try {
    refuseEmptyFlags(options);
    refuseViewOverHttp(options);
    // The policy is decided from the flags and the config before the runtime exists; each reload decides it anew (followConfig).
    const config = readConfig({ configFlag: options.configFlag });
    const policy = await servePolicy(options, await config);
    runtime = createRuntime({
      configFlag: options.configFlag,
      config,
      surface: 'mcp',
      longLived: true,
      version: options.version,
      policy,
      ...(logger ? { logger } : {}),
      announce: (line) => say(`mcpkit serve: ${redact(line)}`),
      ...(options.tokenEnv ? { secretVariables: [options.tokenEnv] } : {}),
    });
    stopFollowing = followConfig(runtime, (next) => servePolicy(options, next));
    auditor = await openAudit(options, await config, runtime);
    if (auditor) observe(runtime, calls, auditor);
    const env = runtime.env;
    if ((await config).serve.tracing ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined)) {
      runtime.tracing = await (await import('../audit/tracing.js')).startTracing(options.version);
    }
    if (policy.hostTools === false) {
      runtime.logger.info(
        'serve --http without a token: tools that write the config or start processes are not offered (set a token, or serve.host_tools_without_auth: true)',
      );
    }
    await runtime.startServing();
    // What agents may read is said at start: a root nobody chose is not served in silence.
    if ((await runtime.offeredTools()).some((t) => t.group === 'retrieve')) {
      const { servedRootsLine } = await import('../tools/retrieve/shared.js');
      say(`mcpkit serve: ${await servedRootsLine(runtime.context())}`);
    }
    const log = auditor;
    return { runtime, calls, close, ...(log ? { audit: () => log.status() } : {}) };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A running `serve --http`: where it listens, its runtime, and how to stop it (sessions, upstreams, logs). */
export interface HttpServeHandle {
  url: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/**
 * `serve --http` up and listening, in this process: what `mcpkit serve --http` runs until a signal
 * ends it, and what tests start without a process of its own. `say` gets serve's own lines.
 */
export async function startHttpServe(given: ServeOptions & { http: true }, say: Say = toStderr, logger?: Logger): Promise<HttpServeHandle> {
  const token = serveToken(given, process.env);
  const options = { ...given, ...(token !== undefined ? { token } : {}) };
  const core = await startCore(options, say, logger);
  try {
    const http = await serveOverHttp(options, core, say);
    return {
      url: http.url,
      runtime: core.runtime,
      close: async () => {
        await http.close();
        await core.close();
      },
    };
  } catch (error) {
    await core.close();
    throw error;
  }
}

/**
 * `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. Exits the process
 * when the session ends (or on SIGINT/SIGTERM over HTTP), after closing every upstream, so no
 * child process outlives us.
 */
export async function runServe(options: ServeOptions): Promise<never> {
  let code = 0;
  try {
    if (options.http) {
      // Listened for before "listening" is printed: a signal that comes at once ends serve cleanly, not by default.
      const stop = new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      const served = await startHttpServe({ ...options, http: true });
      await stop;
      await served.close();
    } else {
      const core = await startCore(options, toStderr);
      try {
        await serveOverStdio(options, core.runtime);
      } finally {
        await core.close();
      }
    }
  } catch (error) {
    const e = errorObject(error, SERVE_WORDS);
    process.stderr.write(`mcpkit serve: Error [${e.code}]: ${e.message}${e.hint ? `\nHint: ${e.hint}` : ''}\n`);
    code = exitCodeFor(e);
  }
  process.exit(code);
}

async function serveOverStdio(options: ServeOptions, served: Runtime): Promise<void> {
  if (options.eager || options.view) {
    // A named view is resolved before serving, so a typo fails at start, not on the first call.
    const ready = await served.openHub(options.view, { shared: true });
    if (options.eager) void ready.warmUp();
  }
  if (process.stdin.isTTY) {
    // Started by hand: say what it is waiting for, once, so it does not look hung.
    process.stderr.write('mcpkit serve: speaking MCP on stdin/stdout and waiting for a client (MCP clients start this command themselves). Ctrl-C stops it.\n');
  }
  await serveStdio({
    runtime: served,
    hasServers: await served.viewHasServers(options.view),
    hub: (era) => (era === 'modern' ? () => served.openHub(options.view, { shared: true, era }) : (downstream) => served.clientHub(options.view, downstream)),
  });
}

/**
 * serve's audit log, from --audit-log (relative to where serve runs) or serve.audit_log
 * (relative to the config file); none when neither is set. A path that cannot be opened stops
 * serve at start, naming it.
 */
async function openAudit(options: ServeOptions, config: McpkitConfig, runtime: Runtime) {
  if (options.auditLog !== undefined && options.auditLog.trim() === '')
    throw new ToolError('INVALID_INPUT', `${field('audit-log')} is empty; give a file path, or leave the flag out.`);
  const { resolve, dirname } = await import('node:path');
  const path = options.auditLog
    ? resolve(options.auditLog)
    : config.serve.audit_log
      ? resolve(dirname(runtime.configLocation.path), config.serve.audit_log)
      : undefined;
  if (!path) return undefined;
  const [{ AuditLog }, { Auditor }, { mkdirSync }] = await Promise.all([import('../audit/audit-log.js'), import('../audit/auditor.js'), import('node:fs')]);
  let log: InstanceType<typeof AuditLog>;
  try {
    // A log of its own in a folder not made yet (~/.local/state/mcpkit): made private.
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    log = new AuditLog(path, {
      ...(config.serve.audit_max_bytes ? { maxBytes: config.serve.audit_max_bytes } : {}),
      ...(config.serve.audit_keep !== undefined ? { keep: config.serve.audit_keep } : {}),
      failed: (reason) => runtime.logger.error(`${reason}; audit lines wait (up to 10,000, then are dropped and counted) and the write is tried again`),
      recovered: (dropped) => runtime.logger.warn(`the audit log ${path} is written again${dropped ? ` (${dropped} line(s) were dropped meanwhile)` : ''}`),
    });
  } catch (error) {
    throw new ToolError('FILE_ACCESS', `Cannot open the audit log ${path}: ${(error as Error).message}.`, {
      details: { file: path },
      hint: 'Check that its folder exists and is writable, or choose another --audit-log / serve.audit_log.',
    });
  }
  return new Auditor(log, { arguments: config.serve.audit_arguments === true });
}

/** Serve's calls are told to `observer` too, from now on. */
function observe(runtime: Runtime, calls: CallQueue, observer: CallObserver): void {
  calls.add(observer);
  runtime.observer = calls;
}

/** The metrics of serve --http (audit/metrics.ts): every call is counted from now on. */
async function serveMetrics(runtime: Runtime, calls: CallQueue, sessions: () => number, audit: (() => AuditStatus) | undefined) {
  const { ServeMetrics } = await import('../audit/metrics.js');
  const metrics = new ServeMetrics({
    upstreams: () => runtime.upstreamStatus(),
    sessions,
    generation: () => runtime.configStatus().generation,
    ...(audit ? { audit } : {}),
  });
  runtime.live.reloaded.on((report) => metrics.reloaded(report.outcome));
  observe(runtime, calls, metrics);
  return metrics;
}

const SERVE_WORDS: Words = { field: (name) => `--${name}`, inputHint: 'Run "mcpkit serve --help".' };

/** An empty value would otherwise mean "no token", "every interface" or "the whole catalog", in silence. */
function refuseEmptyFlags(options: ServeOptions): void {
  for (const [flag, value] of [
    ['token', options.token],
    ['host', options.host],
    ['view', options.view],
    ['groups', options.groups],
  ] as const) {
    if (value !== undefined && value.trim() === '') {
      throw new ToolError('INVALID_INPUT', `${field(flag)} is empty; give a value, or leave the flag out.`);
    }
  }
}

/**
 * Over HTTP every view has its own route, so --view would choose nothing: refused as bad usage
 * rather than ignored, with the URL the view is served at. (Serving the view at /mcp instead would
 * give one view two URLs, and /mcp is the default catalog everywhere else.)
 */
function refuseViewOverHttp(options: ServeOptions): void {
  if (!options.http || options.view === undefined) return;
  throw new ToolError(
    'INVALID_INPUT',
    `--view does not apply to --http: every view is served at its own route, this one at /view/${options.view}/mcp, and /mcp serves the default catalog.`,
    { hint: `Point the client at http://HOST:PORT/view/${options.view}/mcp and leave out --view.` },
  );
}

/**
 * The policy of what is served and how it is listed: --read-only, --groups (else serve.groups),
 * --exposure and --token-budget, checked here so that a typo stops serve at start with the names
 * it knows. Over HTTP without authentication (no token), tools that write the config or start
 * processes are not offered unless the config says so (serve.host_tools_without_auth: true): any
 * web page the user visits, or anyone who can reach the port, could otherwise plant a command and run it.
 */
async function servePolicy(options: ServeOptions, config: McpkitConfig): Promise<Policy> {
  const fromFlag = options.groups
    ?.split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  const groups = fromFlag ?? config.serve.groups;
  if (groups) {
    const known = (await import('../tools/index.js')).toolGroups.map((g) => g.name);
    const unknown = groups.filter((g) => !known.includes(g));
    if (unknown.length) {
      const where = fromFlag ? '--groups' : 'serve.groups';
      throw new ToolError(fromFlag ? 'INVALID_INPUT' : 'CONFIG_INVALID', `${where} names unknown group(s) ${unknown.map((g) => `"${g}"`).join(', ')}.`, {
        hint: `Known groups: ${known.join(', ')}.`,
      });
    }
  }
  if (options.exposure !== undefined && !(EXPOSURES as readonly string[]).includes(options.exposure)) {
    throw new ToolError('INVALID_INPUT', `--exposure must be one of ${EXPOSURES.join(', ')}, got "${options.exposure}".`);
  }
  let tokenBudget: number | undefined;
  if (options.tokenBudget !== undefined) {
    tokenBudget = Number(options.tokenBudget);
    const { min, max } = TOKEN_BUDGET_RANGE;
    if (!Number.isInteger(tokenBudget) || tokenBudget < min || tokenBudget > max) {
      throw new ToolError('INVALID_INPUT', `--token-budget must be a whole number of tokens from ${min} to ${max}, got "${options.tokenBudget}".`);
    }
  }
  const authenticated =
    (options.token ?? config.serve.token) !== undefined || config.serve.auth !== undefined || Object.keys(config.serve.clients ?? {}).length > 0;
  const hostTools = !options.http || authenticated || config.serve.host_tools_without_auth === true;
  return {
    readOnly: options.readOnly === true,
    ...(groups ? { groups } : {}),
    ...(options.exposure ? { exposure: options.exposure as Exposure } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(hostTools ? {} : { hostTools: false }),
  };
}

function parsePort(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ToolError('INVALID_INPUT', `--port must be a whole number from 0 to 65535, got "${value}".`);
  }
  return port;
}

async function serveOverHttp(options: ServeOptions, core: ServeCore, say: Say) {
  const { runtime, calls, audit } = core;
  const config = await runtime.config();
  const { requireUsable } = await import('../config/problems.js');
  requireUsable(config, 'serve');
  const host = options.host ?? config.serve.host ?? SETTING_DEFAULTS.serve.host;
  const port = parsePort(options.port ?? config.serve.port, SETTING_DEFAULTS.serve.port);
  const token = options.token ?? config.serve.token;
  const oauth = config.serve.auth;
  if (!token && !oauth && !Object.keys(config.serve.clients ?? {}).length && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    runtime.logger.warn(`serving on ${host} without a token: anyone who can reach this port can use every tool (set --token or serve.token)`);
  }
  const { serveHttp } = await import('./http.js');
  if (options.eager) void runtime.openHub(undefined, { shared: true }).then((h) => h.warmUp());
  const settingsOf = (now: McpkitConfig) => httpSettingsOf(now, options, runtime.policy.exposure);
  let openSessions = () => 0;
  const metrics = config.serve.metrics === false ? undefined : await serveMetrics(runtime, calls, () => openSessions(), audit);
  // Made once per config generation: a reload applies to the next request.
  let settings: { generation: number; value: Promise<HttpSettings> } | undefined;
  const http = await serveHttp({
    host,
    port,
    runtime,
    settings: () => {
      const generation = runtime.live.currentGeneration;
      if (settings?.generation !== generation) settings = { generation, value: runtime.config().then(settingsOf) };
      return settings.value;
    },
    ...(config.serve.max_body_bytes ? { maxBodyBytes: config.serve.max_body_bytes } : {}),
    ...(config.serve.session_idle_ms ? { sessionIdleMs: config.serve.session_idle_ms } : {}),
    ...(config.serve.replica_id ? { replicaId: config.serve.replica_id } : {}),
    ...(config.serve.max_sessions ? { maxSessions: config.serve.max_sessions } : {}),
    ...(config.serve.send_timeout_ms ? { sendTimeoutMs: config.serve.send_timeout_ms } : {}),
    ...(config.serve.max_send_buffer_bytes ? { maxSendBufferBytes: config.serve.max_send_buffer_bytes } : {}),
    // A scrape counts every call answered before it.
    ...(metrics ? { metrics: () => (calls.drain(), metrics.text()) } : {}),
    ...(audit ? { audit } : {}),
  });
  openSessions = http.openSessions;
  say(
    `mcpkit serve: listening on ${http.url}/mcp (views: ${http.url}/views, health: ${http.url}/health)${oauth ? `; OAuth: tokens from ${oauth.issuer}, metadata at ${http.resource}/.well-known/oauth-protected-resource/mcp` : ''}`,
  );
  return http;
}
