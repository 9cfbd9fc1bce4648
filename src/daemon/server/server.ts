import { AsyncLocalStorage } from 'node:async_hooks';
import { chmodSync, linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { followConfig } from '../../app/follow-config.js';
import { DAEMON_IDLE_MINUTES } from '../../config/schema/defaults.js';
import { createRuntime, type Runtime } from '../../app/runtime.js';
import type { WaitKind } from '../../app/runtime-options.js';
import { connect } from '../client/client.js';
import { daemonPlace, ensurePrivateFolder, type DaemonPlace } from '../client/place.js';
import {
  differingVariables,
  lineReader,
  MAX_REQUEST_LINE_BYTES,
  toWire,
  watchedVariables,
  type DaemonMessage,
  type DaemonOperation,
  type DaemonRequest,
  type DaemonStatus,
} from '../client/protocol.js';
import { callUpstreamTool, listUpstreamTools } from '../../cli/upstream-calls.js';
import { DaemonTasks, taskAnswer } from './tasks.js';
import { errorObject, ToolError } from '../../core/errors.js';
import { redact, redactDeep } from '../../core/redact.js';
import { routeHookStderrToCallers, withCallerStderr } from '../../core/caller-stderr.js';
import { buildIdentity } from '../../core/version.js';
import { DEFAULT_POLICY } from '../../tool/context.js';
import { saysSlowServer } from '../../cli/terminal/output.js';
import { runWarmTool } from './warm-tool.js';
import { boundedSender } from './bounded-sender.js';
import { clientIo, runRemoteCommand } from './remote-command.js';
import { warmRoots } from './warm-roots.js';

export type { DaemonStatus };

/** `daemon.idle_minutes` when the config does not set it. */
export const DEFAULT_IDLE_MINUTES = DAEMON_IDLE_MINUTES;

/** The record a daemon keeps beside its socket while it runs. */
export interface DaemonRecord {
  pid: number;
  build: string;
  config: string;
  socket: string;
  started: string;
}

/** What a request's work says while it runs: to the command that asked, not the daemon's log. */
interface RequestScope {
  waiting: (message: string, kind?: WaitKind) => void;
}

/** What keeps the code cache of the daemon's script (cli/cached-script.ts): `keep` once it listens, `warm` once it did a client's work. */
export interface CodeCacheKeeper {
  keep(): void;
  warm(): void;
}

/**
 * `mcpkit daemon run`: the runtime `serve` runs (long-lived, following its config), answering the
 * terminal commands of one config on a Unix socket of its user's own, until it has been idle for
 * `daemon.idle_minutes` or is stopped. Every request runs the same code the command would have
 * run itself; what it says while waiting goes back to that command alone.
 */
export async function runDaemon(options: { configPath: string; version: string; env?: NodeJS.ProcessEnv; cache?: CodeCacheKeeper }): Promise<never> {
  const env = options.env ?? process.env;
  const place = daemonPlace(options.configPath, env);
  const say = (line: string) => void process.stderr.write(`${new Date().toISOString()} mcpkit daemon: ${redact(line)}\n`);
  routeHookStderrToCallers();
  const requestScope = new AsyncLocalStorage<RequestScope>();
  const runtime = createRuntime({
    configFlag: place.config,
    surface: 'cli',
    longLived: true,
    warm: true,
    version: options.version,
    env,
    waiting: (message, kind) => (requestScope.getStore()?.waiting ?? say)(message, kind),
    announce: say,
  });
  let server: Server | undefined;
  let stopFollowing: (() => void) | undefined;
  try {
    ensurePrivateFolder(place.folder);
    await refuseSecondDaemon(place);
    await runtime.config(); // a config that does not load stops the daemon at start, as it stops serve
    stopFollowing = followConfig(runtime, async () => DEFAULT_POLICY);
    const daemon = new Daemon(runtime, place, requestScope, options.cache?.warm);
    server = await daemon.listen();
    options.cache?.keep();
    say(`answering the commands of ${place.config} on ${place.socket} (pid ${process.pid})`);
    void warmRoots(runtime, say);
    const reason = await daemon.ended;
    say(`stopping: ${reason}`);
  } catch (error) {
    const e = errorObject(error);
    say(`Error [${e.code}]: ${e.message}${e.hint ? `\nHint: ${e.hint}` : ''}`);
    process.exitCode = 1;
  } finally {
    stopFollowing?.();
    server?.close();
    removeOwnFiles(place);
    await runtime.close();
  }
  process.exit();
}

class Daemon {
  private readonly started = Date.now();
  private requests = 0;
  private inFlight = 0;
  /** `mcpkit call --task`'s calls, running and ended (./tasks.ts). */
  private readonly tasks = new DaemonTasks();
  private idleTimer?: NodeJS.Timeout;
  private end!: (reason: string) => void;
  readonly ended = new Promise<string>((resolve) => (this.end = resolve));

  constructor(
    private readonly runtime: Runtime,
    private readonly place: DaemonPlace,
    private readonly scope: AsyncLocalStorage<RequestScope>,
    /** Told once a client's work is done (a command, a tool): the code it compiled is what the next daemon's cache should hold. */
    private readonly worked: () => void = () => {},
  ) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => this.end(`${signal}`));
    // A new idle limit in the config counts from now.
    runtime.configs.live.reloaded.on(() => this.armIdle());
  }

  async listen(): Promise<Server> {
    const server = createServer((socket) => this.accept(socket));
    // Bound under a name of its own, then linked into place: a socket file exists a moment before
    // it listens, and a command that connected then was refused and removed it as a dead daemon's
    // (the next step here then failed). Linked, the path appears already listening; a link, not a
    // rename, so that a daemon that started meanwhile keeps its place. Same length as the final
    // name, so sun_path's limit holds for both.
    const own = this.place.socket.replace(/\.sock$/, `.${(process.pid % 36 ** 4).toString(36).padStart(4, '0')}`);
    rmSync(own, { force: true });
    // The socket is made 0600 from the start: no moment when another user could connect.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(own, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    chmodSync(own, 0o600);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          linkSync(own, this.place.socket);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
          await refuseSecondDaemon(this.place); // a live one: CONFLICT; a dead one's socket is removed
        }
      }
    } finally {
      rmSync(own, { force: true });
    }
    const record: DaemonRecord = {
      pid: process.pid,
      build: buildIdentity(),
      config: this.place.config,
      socket: this.place.socket,
      started: new Date(this.started).toISOString(),
    };
    writeFileSync(this.place.info, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    this.armIdle();
    return server;
  }

  private async idleMinutes(): Promise<number> {
    const config = await this.runtime.config().catch(() => undefined);
    return (config?.daemon as { idle_minutes?: number } | undefined)?.idle_minutes ?? DEFAULT_IDLE_MINUTES;
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.inFlight > 0) return;
    void this.idleMinutes().then((minutes) => {
      clearTimeout(this.idleTimer);
      if (this.inFlight > 0) return;
      this.idleTimer = setTimeout(() => this.end(`idle for ${minutes} minute(s) (daemon.idle_minutes)`), minutes * 60_000);
      this.idleTimer.unref();
    });
  }

  private accept(socket: Socket): void {
    socket.setEncoding('utf8');
    let taken = false;
    const aborter = new AbortController();
    const send = boundedSender(socket, (why) => {
      this.runtime.logger.warn(`daemon: cut a client off: ${why}`);
      socket.destroy();
    });
    socket.on('close', () => aborter.abort()); // the command that asked went away (Ctrl-C): its work stops
    socket.on('error', () => undefined);
    socket.on(
      'data',
      lineReader(
        (raw) => {
          if (taken) return; // one request per connection
          taken = true;
          if (!isRequest(raw)) {
            send({ type: 'error', error: { code: 'INVALID_INPUT', message: 'mcpkit daemon: that is not a request of its protocol.' } });
            socket.end();
            return;
          }
          void this.answer(raw, send, aborter.signal).finally(() => socket.end());
        },
        {
          maxBytes: MAX_REQUEST_LINE_BYTES,
          // A peer that does not speak the protocol is answered once and let go; the daemon goes on.
          onBroken: (error) => {
            send({ type: 'error', error: { code: 'INVALID_INPUT', message: `mcpkit daemon: the request was ${error.message}.` } });
            // Closed both ways once the answer is out: a peer still writing is not read any further.
            socket.end(() => socket.destroy());
          },
        },
      ),
    );
  }

  private async answer(request: DaemonRequest, send: (message: DaemonMessage) => void, signal: AbortSignal): Promise<void> {
    this.requests++;
    this.inFlight++;
    clearTimeout(this.idleTimer);
    try {
      const { operation } = request;
      // Status and stop are for any client, even of another build: that is how it gets replaced.
      if (operation.op === 'status') return send({ type: 'result', result: await this.status() });
      if (operation.op === 'stop') {
        send({ type: 'result', result: { pid: process.pid } });
        setImmediate(() => this.end('asked to stop'));
        return;
      }
      if (request.build !== buildIdentity()) {
        return send({ type: 'bypass', reason: 'build', detail: `the daemon runs mcpkit ${buildIdentity()}, the command ${request.build}` });
      }
      // An edit the watcher has not reported yet (a script that edits, then calls at once) is served
      // before answering: reading the text costs little, and an unchanged one is not checked again.
      const reload = await this.runtime.configs.reload('a command came in after an edit');
      // A file the daemon cannot use: the command reads it itself and reports its problem as it would without a daemon.
      if (reload.outcome === 'kept') return send({ type: 'bypass', reason: 'config', detail: reload.message });
      // A config found elsewhere (a symlink to this one, in another project): not this daemon's to answer.
      if (request.config !== undefined && request.config !== this.place.config) {
        return send({ type: 'bypass', reason: 'config', detail: `the daemon answers for ${this.place.config}, the command uses ${request.config}` });
      }
      const differing = differingVariables(this.runtime.env, request.env, watchedVariables(await this.runtime.config()));
      if (differing.length) {
        return send({ type: 'bypass', reason: 'environment', detail: `these variables differ from the daemon's: ${differing.join(', ')}` });
      }
      if (operation.op === 'call-upstream' && (await this.runtime.allTools()).some((t) => t.name === operation.name)) {
        return send({ type: 'bypass', reason: 'local', detail: `${operation.name} is one of mcpkit's own tools` });
      }
      if (operation.op === 'command') {
        const io = clientIo((stream, text) => send({ type: stream, text }), operation.colors);
        const options = { io, colors: operation.colors, cwd: request.cwd, env: request.env, signal };
        const waiting = (message: string, kind?: WaitKind) =>
          void ((kind !== 'slow-server' || saysSlowServer(request.env, operation.errTty)) && io.err(`mcpkit: ${message}\n`));
        const ran = await withCallerStderr(io.err, () =>
          this.scope.run({ waiting }, () => runRemoteCommand(this.runtime, operation.argv, this.place.config, options)),
        );
        io.flush();
        if (!ran) return send({ type: 'bypass', reason: 'usage', detail: 'a command line for oclif' });
        send({ type: 'result', result: { exitCode: io.code } });
        return this.worked();
      }
      const waiting = (message: string, kind?: WaitKind) => send({ type: 'waiting', message, ...(kind ? { kind } : {}) });
      const result = await withCallerStderr(
        (text) => send({ type: 'err', text }),
        () => this.scope.run({ waiting }, () => this.operate(operation, request, send, signal)),
      );
      send({ type: 'result', result });
      this.worked();
    } catch (error) {
      send({ type: 'error', error: toWire(error, redact, redactDeep) });
    } finally {
      this.inFlight--;
      this.armIdle();
    }
  }

  private async operate(operation: DaemonOperation, request: DaemonRequest, send: (message: DaemonMessage) => void, signal: AbortSignal): Promise<unknown> {
    switch (operation.op) {
      case 'tool':
        return runWarmTool(this.runtime, operation, request, send, signal);
      case 'call-upstream':
        return callUpstreamTool(this.runtime, operation);
      case 'task-start': {
        // The daemon stays up while a task runs: it counts as work in flight until it ends.
        this.inFlight++;

        // A task outlives its request: what its hooks write goes to the daemon's log.
        return withCallerStderr(undefined, () =>
          this.tasks.start(
            operation.name,
            (taskSignal, progress) => callUpstreamTool(this.runtime, operation, { progress, signal: taskSignal }),
            () => {
              this.inFlight--;
              this.armIdle();
            },
          ),
        );
      }
      case 'task':
        return taskAnswer(this.tasks, operation);
      case 'list-upstream':
        return listUpstreamTools(this.runtime, new Set(operation.skip));
      case 'command': // answered in `answer`
      default:
        throw new ToolError('INVALID_INPUT', `mcpkit daemon does not know the operation "${(operation as { op: string }).op}".`);
    }
  }

  private async status(): Promise<DaemonStatus> {
    const memory = process.memoryUsage();
    return {
      pid: process.pid,
      build: buildIdentity(),
      config: this.place.config,
      socket: this.place.socket,
      started: new Date(this.started).toISOString(),
      uptime_s: Math.round((Date.now() - this.started) / 1000),
      idle_minutes: await this.idleMinutes(),
      requests: this.requests,
      upstreams: this.runtime.serving.upstreamStatus(),
      cache: await this.runtime.cacheSummary(),
      memory: { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed },
    };
  }
}

function isRequest(raw: unknown): raw is DaemonRequest {
  const r = raw as Partial<DaemonRequest> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.build === 'string' &&
    typeof r.cwd === 'string' &&
    typeof r.env === 'object' &&
    r.env !== null &&
    typeof r.operation === 'object' &&
    r.operation !== null &&
    typeof (r.operation as { op?: unknown }).op === 'string'
  );
}

/** A daemon that answers on the socket already serves this config: a second one would take its socket away. */
async function refuseSecondDaemon(place: DaemonPlace): Promise<void> {
  const socket = await connect(place);
  if (!socket) return; // none, or a dead one's socket (connect removed it)
  socket.destroy();
  throw new ToolError('CONFLICT', `mcpkit daemon already runs for ${place.config}.`, {
    details: { socket: place.socket },
    hint: 'See "mcpkit daemon status"; "mcpkit daemon restart" replaces it.',
  });
}

/** The socket and record, when they are still this process's (a successor may have taken the place). */
function removeOwnFiles(place: DaemonPlace): void {
  try {
    const record = JSON.parse(readFileSync(place.info, 'utf8')) as DaemonRecord;
    if (record.pid !== process.pid) return;
    unlinkSync(place.info);
  } catch {
    return; // no record of ours: the socket is not ours either
  }
  try {
    unlinkSync(place.socket);
  } catch {
    /* gone already */
  }
}
