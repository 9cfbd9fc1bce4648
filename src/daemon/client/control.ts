import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../core/process-alive.js';
import { ToolError } from '../../core/errors.js';
import { buildIdentity } from '../../core/version.js';
import { connect, request } from './client.js';
import { daemonLog, launchDaemon } from './launch.js';
import { checkPrivateFolder, daemonFolder, daemonPlace, type DaemonPlace } from './place.js';

/** What `mcpkit daemon status` shows (the daemon's own DaemonStatus, and what this command knows). */
export interface DaemonState {
  running: boolean;
  config: string;
  socket: string;
  log: string;
  /** The daemon runs another build of mcpkit than this command: commands do their work themselves until it is restarted. */
  other_build?: boolean;
  status?: Record<string, unknown> & { pid: number; build: string };
}

/** Asks the daemon of a config for its status; running: false when none answers (a dead one's socket is removed). */
export async function daemonState(configPath: string, env: NodeJS.ProcessEnv): Promise<DaemonState> {
  const place = daemonPlace(configPath, env);
  const base = { config: place.config, socket: place.socket, log: daemonLog(place) };
  if (!existsSync(place.socket)) return { running: false, ...base };
  checkPrivateFolder(place.folder); // a folder others may enter is reported, not trusted
  const status = (await ask(place, 'status')) as DaemonState['status'];
  if (!status) return { running: false, ...base };
  return { running: true, ...base, ...(status.build !== buildIdentity() ? { other_build: true } : {}), status };
}

/** How long a stop may take: a daemon may be finishing a call. */
const STOP_TIMEOUT_MS = 15_000;

/** Stops the daemon of a config and waits until its socket is gone; the pid it had, or undefined when none ran. */
export async function stopDaemon(configPath: string, env: NodeJS.ProcessEnv, timeoutMs = STOP_TIMEOUT_MS): Promise<number | undefined> {
  const place = daemonPlace(configPath, env);
  if (!existsSync(place.socket)) return undefined;
  const answer = (await ask(place, 'stop')) as { pid: number } | undefined;
  if (!answer) return undefined;
  await untilGone(answer.pid, () => existsSync(place.socket), timeoutMs);
  return answer.pid;
}

/** Waits until the daemon process `pid` has exited (and `stillThere` says no more); TIMEOUT after `timeoutMs`. */
async function untilGone(pid: number, stillThere: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (stillThere() || processAlive(pid)) {
    if (Date.now() - started > timeoutMs) {
      throw new ToolError('TIMEOUT', `mcpkit daemon (pid ${pid}) did not stop within ${timeoutMs} ms.`, {
        details: { pid },
        hint: `It may be finishing a long call; stop it with: kill ${pid}`,
      });
    }
    await new Promise((r) => setTimeout(r, 30));
  }
}

/** Starts the daemon of a config, replacing one of another build; `already` when one of this build runs. */
export async function startDaemon(configPath: string, env: NodeJS.ProcessEnv): Promise<{ pid: number; already: boolean; replaced?: number; log: string }> {
  if (!existsSync(configPath)) {
    throw new ToolError('CONFIG_NOT_FOUND', `No config file at ${configPath}: a daemon serves the commands of one config.`, {
      details: { file: configPath },
      hint: 'Create one with "mcpkit config init", or name yours with --config.',
    });
  }
  const state = await daemonState(configPath, env);
  if (state.running && !state.other_build) return { pid: state.status!.pid, already: true, log: state.log };
  const replaced = state.running ? await stopDaemon(configPath, env) : undefined;
  // A daemon already asked to stop (by another start under daemon: auto) may have left its socket,
  // and stopDaemon then found nothing to ask or wait for: the new one starts only once the old
  // process is gone, never beside it.
  if (state.running && replaced === undefined) await untilGone(state.status!.pid, () => false, STOP_TIMEOUT_MS);
  const launched = await launchDaemon(configPath, env);
  return { ...launched, already: false, ...(replaced !== undefined ? { replaced } : {}) };
}

/** A status or stop request, which a daemon of any build answers; undefined when none answers. */
async function ask(place: DaemonPlace, op: 'status' | 'stop'): Promise<unknown> {
  const socket = await connect(place);
  if (!socket) return undefined;
  const last = await request(socket, { op }, {}, {});
  if (last?.type === 'error') throw new ToolError('UNAVAILABLE', `mcpkit daemon refused "${op}".`);
  return last?.type === 'result' ? last.result : undefined;
}

/**
 * Every daemon of this user that answers, one per config, by the records beside their sockets
 * (a dead one's socket and record are removed on the way); in config path order.
 */
export async function listDaemons(env: NodeJS.ProcessEnv): Promise<DaemonState[]> {
  const folder = daemonFolder(env);
  let records: string[];
  try {
    records = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return []; // no folder: no daemon ever ran
  }
  checkPrivateFolder(folder);
  const configs = new Set<string>();
  for (const name of records) {
    try {
      const { config } = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { config?: unknown };
      if (typeof config === 'string') configs.add(config);
    } catch {
      /* removed meanwhile, or not a record */
    }
  }
  const states = await Promise.all([...configs].sort().map((config) => daemonState(config, env)));
  return states.filter((state) => state.running);
}

/** Stops every daemon of this user; the configs and pids of those stopped. */
export async function stopAllDaemons(env: NodeJS.ProcessEnv): Promise<{ config: string; pid: number }[]> {
  const running = await listDaemons(env);
  const stopped = await Promise.all(running.map(async (state) => ({ config: state.config, pid: await stopDaemon(state.config, env) })));
  return stopped.filter((s): s is { config: string; pid: number } => s.pid !== undefined);
}
