import { resolve } from 'node:path';
import { SETTING_DEFAULTS } from '../config/schema/defaults.js';
import { createRuntime, readConfig, type Runtime } from '../app/runtime.js';
import type { McpkitConfig } from '../config/schema/schema.js';
import { errorObject, exitCodeFor, field, ToolError, type Words } from '../core/errors.js';
import { serveStdio } from './stdio.js';
import { listeningLine, viewsStartedWithServe } from './serve-start.js';
import { parsePort, refuseEmptyFlags, refuseViewOverHttp, servePolicy, type ServeOptions } from './access/serve-policy.js';
import { serveToken } from './access/serve-token.js';
import { httpSettingsOf } from './http/http-settings.js';
import { followConfig } from '../app/follow-config.js';
import { redact } from '../core/redact.js';
import type { HttpSettings } from './http/http.js';
import { CallQueue } from '../audit/call-queue.js';
import type { CallObserver } from '../audit/auditor.js';
import type { Tracing } from '../audit/tracing.js';
import type { Logger } from '../core/logger.js';
import type { Readable, Writable } from 'node:stream';
import { tapOpening, warmForOpening, type OpeningWarm, type TappedInput } from './stdio-opening.js';
import type { AuditStatus } from '../audit/audit-log.js';

export type { ServeOptions } from './access/serve-policy.js';

/** Where serve's own lines go (stderr; a test in the same process collects them). */
export type Say = (line: string) => void;
const toStderr: Say = (line) => void process.stderr.write(`${line}\n`);

/** What `serve` runs on, whichever transport it serves: the runtime, following its config, and its observers. */
interface ServeCore {
  runtime: Runtime;
  calls: CallQueue;
  /** What hears of serve's calls, handed to its transports (the metrics join later, over HTTP). */
  observers: Observers;
  /** How the audit log stands, when there is one (for /health and /metrics). */
  audit?: () => AuditStatus;
  /** The servers started with serve (serve.eager): settles once each has connected or failed. */
  warming?: Promise<void>;
  /** Over stdio with serve.eager: whether the client's own connections start once it is connected (./stdio-opening.ts, `own`). */
  warmsOwn?: Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The runtime `serve` serves from: the policy decided from the flags and the config, the config
 * followed live, the audit log, tracing, each served group's start-up work. A failure closes what
 * was made and throws.
 */
async function startCore(options: ServeOptions, say: Say, logger?: Logger, serverStderr?: Say, opening?: Promise<OpeningWarm | undefined>): Promise<ServeCore> {
  let runtime: Runtime | undefined;
  let stopFollowing: (() => void) | undefined;
  let auditor: Awaited<ReturnType<typeof openAudit>>;
  // What hears of every ended call: the audit log and the metrics, when they are on.
  const calls = new CallQueue();
  const observers: Observers = {};
  let closed = false;
  const close = async () => {
    closed = true;
    stopFollowing?.();
    await runtime?.close();
    // After the upstreams: calls that ended while closing still get their line, and their spans are sent.
    calls.drain();
    await auditor?.close();
    await observers.tracing?.shutdown().catch(() => undefined);
  };
  try {
    refuseEmptyFlags(options);
    refuseViewOverHttp(options);
    // The policy is decided from the flags and the config before the runtime exists; each reload decides it anew (followConfig).
    const config = readConfig({ configFlag: options.configFlag, env: options.env, cwd: options.cwd });
    const policy = await servePolicy(options, (await config).config);
    runtime = createRuntime({
      configFlag: options.configFlag,
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      config,
      surface: 'mcp',
      longLived: true,
      version: options.version,
      policy,
      ...(logger ? { logger } : {}),
      ...(serverStderr ? { serverStderr } : {}),
      announce: (line) => say(`mcpkit serve: ${redact(line)}`),
      ...(options.tokenEnv ? { secretVariables: [options.tokenEnv] } : {}),
      ...(options.http ? { perClient: true } : {}),
      ...(options.auditLog?.trim() ? { auditLog: resolve(options.auditLog) } : {}),
    });
    stopFollowing = followConfig(runtime, (next) => servePolicy(options, next));
    const { warming, warmsOwn } = warmAtStart(options, (await config).config, runtime, opening, () => closed);
    auditor = await openObservers(options, (await config).config, runtime, observers, calls);
    if (policy.hostTools === false) {
      runtime.logger.info(
        'serve --http without a token: tools that write the config or start processes are not offered (set a token, or serve.host_tools_without_auth: true)',
      );
    }
    await runtime.startServing();
    await sayServedRoots(runtime, say);
    const log = auditor;
    return {
      runtime,
      calls,
      observers,
      close,
      ...(log ? { audit: () => log.status() } : {}),
      ...(warming ? { warming } : {}),
      ...(warmsOwn ? { warmsOwn } : {}),
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * What a first listing would start starts now, beside the rest of serve's start (./serve-start.ts):
 * over HTTP the shared 2025 connections; over stdio, once the one client's opening request says
 * which connections it uses (./stdio-opening.ts), and `warmsOwn` says whether they are its own.
 */
function warmAtStart(
  options: ServeOptions,
  config: McpkitConfig,
  runtime: Runtime,
  opening: Promise<OpeningWarm | undefined> | undefined,
  closed: () => boolean,
): Pick<ServeCore, 'warming' | 'warmsOwn'> {
  const startNow = viewsStartedWithServe(options, config);
  if (!startNow) return {};
  if (options.http) return { warming: runtime.serving.warm(startNow, 'legacy') };
  const warmsOwn = opening?.then((how) => {
    if (!closed() && (how === 'legacy' || how === 'modern')) void runtime.serving.warm(startNow, how);
    return how === 'own';
  });
  return warmsOwn ? { warmsOwn } : {};
}

/** The audit log and tracing, when they are on, joined to what hears of every ended call: the audit log, to close at the end. */
async function openObservers(options: ServeOptions, config: McpkitConfig, runtime: Runtime, observers: Observers, calls: CallQueue) {
  const auditor = await openAudit(options, config, runtime);
  if (auditor) observe(observers, calls, auditor);
  const env = runtime.env;
  if (config.serve.tracing ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined)) {
    observers.tracing = await (await import('../audit/tracing.js')).startTracing(options.version);
  }
  return auditor;
}

/** What agents may read is said at start: a root nobody chose is not served in silence. */
async function sayServedRoots(runtime: Runtime, say: Say): Promise<void> {
  if (!(await runtime.offeredTools()).some((t) => t.group === 'retrieve')) return;
  const { servedRootsLine } = await import('../tools/retrieve/shared.js');
  say(`mcpkit serve: ${await servedRootsLine(runtime.context())}`);
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
  const token = serveToken(given, given.env ?? process.env);
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

/** What the process serve runs in hears of it: `warm` once its first tools/call is answered (stdio). */
export interface ServeHooks {
  warm?: () => void;
}

/**
 * `mcpkit serve`, shared by the oclif command and the fast path in bin/run.js. Exits the process
 * when the session ends (or on SIGINT/SIGTERM over HTTP), after closing every upstream, so no
 * child process outlives us.
 */

export async function runServe(options: ServeOptions, hooks: ServeHooks = {}): Promise<never> {
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
      const input = tapOpening(process.stdin);
      const core = await startCore(options, toStderr, undefined, undefined, input.opening.then(warmForOpening));
      try {
        await serveOverStdio(options, core, { ...hooks, input });
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

/**
 * `serve` over a pair of streams in this process: the session `mcpkit serve` runs on its stdin and
 * stdout, with the same framing, hot path and runtime, for tests that speak to it without a
 * process start. `ended` settles when the session has ended (the input ended and every request had
 * its answer, or the output closed) and everything serve started is closed.
 */
export async function startStdioServe(
  options: ServeOptions,
  streams: { input: Readable; output: Writable },
  say: Say,
  logger?: Logger,
): Promise<{ runtime: Runtime; ended: Promise<void> }> {
  // Read from now: the client's opening request decides what serve starts for it (./stdio-opening.ts).
  const input = tapOpening(streams.input);
  const core = await startCore(options, say, logger, say, input.opening.then(warmForOpening));
  const ended = serveOverStdio(options, core, { streams, input }).finally(() => core.close());
  return { runtime: core.runtime, ended };
}

async function serveOverStdio(
  options: ServeOptions,
  { runtime: served, observers, warmsOwn }: ServeCore,
  { streams, warm, input }: ServeHooks & { streams?: { input: Readable; output: Writable }; input?: TappedInput } = {},
): Promise<void> {
  // Its groups, exposure, audit log and limits come from the serve section: one that cannot be
  // read stops serve, rather than serving the defaults (every group). Its HTTP settings are not read here.
  const { requireUsable } = await import('../config/check/problems.js');
  requireUsable(await served.config(), 'serve');
  // A named view is resolved before serving, so a typo fails at start, not on the first call.
  if (options.view) await served.serving.openHub(options.view, { shared: true });
  if (!streams && process.stdin.isTTY) {
    // Started by hand: say what it is waiting for, once, so it does not look hung.
    process.stderr.write('mcpkit serve: speaking MCP on stdin/stdout and waiting for a client (MCP clients start this command themselves). Ctrl-C stops it.\n');
  }
  await serveStdio({
    runtime: served,
    observers,
    hasServers: await served.serving.viewHasServers(options.view),
    hub: (era) =>
      era === 'modern' ? () => served.serving.openHub(options.view, { shared: true, era }) : (downstream) => served.serving.clientHub(options.view, downstream),
    ...(streams ? { streams } : {}),
    ...(warm ? { warm } : {}),
    ...(input ? { input } : {}),
    ...(warmsOwn ? { warmOwn: warmsOwn } : {}),
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
  const { auditPath, openAuditFile } = await import('../audit/audit-file.js');
  const path = auditPath(config.serve, runtime.configLocation.path, options.auditLog);
  return path ? openAuditFile(path, config.serve, runtime.logger) : undefined;
}

/** serve's observers: the queue every ended call goes through once something listens, and tracing when it is on. */
type Observers = { observer?: CallObserver; tracing?: Tracing };

/** Serve's calls are told to `observer` too, from now on. */
function observe(observers: Observers, calls: CallQueue, observer: CallObserver): void {
  calls.add(observer);
  observers.observer = calls;
}

/** The metrics of serve --http (audit/metrics.ts): every call is counted from now on. */
async function serveMetrics(runtime: Runtime, observers: Observers, calls: CallQueue, sessions: () => number, audit: (() => AuditStatus) | undefined) {
  const { ServeMetrics } = await import('../audit/metrics.js');
  const metrics = new ServeMetrics({
    upstreams: () => runtime.serving.upstreamStatus(),
    sessions,
    generation: () => runtime.configs.status().generation,
    ...(audit ? { audit } : {}),
  });
  runtime.configs.live.reloaded.on((report) => metrics.reloaded(report.outcome));
  observe(observers, calls, metrics);
  return metrics;
}

/**
 * serve.store, opened before serve listens: a store that cannot be reached stops serve (or, with
 * required: false, serve starts and refuses limited calls until it answers), and so does a
 * missing or weak serve.store.key; a store without a password or TLS off loopback is warned of.
 */
async function openStore(config: McpkitConfig, runtime: Runtime) {
  const settings = config.serve.store;
  if (!settings) return undefined;
  const { SharedStore } = await import('../store/shared-store.js');
  const { storeUrlWarnings } = await import('../store/store-trust.js');
  const given = { url: settings.url, key: settings.key, ...(settings.prefix !== undefined ? { prefix: settings.prefix } : {}), lease_ms: settings.lease_ms };
  for (const warning of storeUrlWarnings(settings.url)) runtime.logger.warn(warning);
  return settings.required === false ? SharedStore.openLater(given, runtime.logger) : SharedStore.open(given, runtime.logger);
}

const SERVE_WORDS: Words = { field: (name) => `--${name}`, inputHint: 'Run "mcpkit serve --help".' };

async function serveOverHttp(options: ServeOptions, core: ServeCore, say: Say) {
  const { runtime, calls, audit } = core;
  const config = await runtime.config();
  const { requireUsable } = await import('../config/check/problems.js');
  requireUsable(config, 'serve');
  requireUsable(config, 'serve.http');
  const host = options.host ?? config.serve.host ?? SETTING_DEFAULTS.serve.host;
  const port = parsePort(options.port ?? config.serve.port, SETTING_DEFAULTS.serve.port);
  const token = options.token ?? config.serve.token;
  const oauth = config.serve.auth;
  if (!token && !oauth && !Object.keys(config.serve.clients ?? {}).length && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    runtime.logger.warn(`serving on ${host} without a token: anyone who can reach this port can use every tool (set --token or serve.token)`);
  }
  // Handed over once: everything that shares state with the other replicas finds it in the runtime.
  const store = await openStore(config, runtime);
  if (store) runtime.serving.useStore(store);
  const { serveHttp } = await import('./http/http.js');
  const settingsOf = (now: McpkitConfig) => httpSettingsOf(now, options, runtime.policy.exposure);
  let openSessions = () => 0;
  const metrics = config.serve.metrics === false ? undefined : await serveMetrics(runtime, core.observers, calls, () => openSessions(), audit);
  // Made once per config generation: a reload applies to the next request.
  let settings: { generation: number; value: Promise<HttpSettings> } | undefined;
  const http = await serveHttp({
    host,
    port,
    runtime,
    observers: core.observers,
    settings: () => {
      const generation = runtime.configs.live.currentGeneration;
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
  // A per_client server is reached with each caller's own credentials: the shared pool refuses it (down), which is no failure to report at start.
  const shared = (name: string) => config.mcp_servers[name]?.per_client !== true;
  const started = core.warming && {
    warming: core.warming,
    waitMs: config.serve.start_wait_ms,
    statuses: () => runtime.serving.upstreamStatus().filter((s) => shared(s.name)),
  };
  say(await listeningLine(http, oauth?.issuer, started));
  return http;
}
