import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../../core/errors.js';
import { packageRoot } from '../../core/version.js';
import { connect } from './client.js';
import { daemonPlace, ensurePrivateFolder, type DaemonPlace } from './place.js';

const bin = () => join(packageRoot(), 'bin/run.js');
/** `mcpkit daemon run` without oclif (daemon/server/entry.ts): the line launchDaemon runs is always this one. */
const daemonEntry = () => join(packageRoot(), 'dist/daemon/server/entry.js');

/** The daemon's log (its stderr): beside its socket, one per config. */
export function daemonLog(place: DaemonPlace): string {
  return place.socket.replace(/\.sock$/, '.log');
}

/** `daemon: auto`: `mcpkit daemon start` for this config, detached, its output nowhere; the command goes on at once. */
export function startInBackground(configPath: string, env: NodeJS.ProcessEnv): void {
  const child = spawn(process.execPath, [bin(), 'daemon', 'start', '--config', configPath], { detached: true, stdio: 'ignore', env });
  child.on('error', () => undefined);
  child.unref();
}

/**
 * Starts the daemon of a config as a process of its own (detached, its stderr in its log) and
 * waits until it answers on its socket; a daemon that exits first fails with the end of its log.
 */
export async function launchDaemon(configPath: string, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<{ pid: number; log: string }> {
  const place = daemonPlace(configPath, env);
  ensurePrivateFolder(place.folder);
  const log = daemonLog(place);
  const fd = openSync(log, 'w', 0o600); // the log of the daemon that runs now
  const child = spawn(process.execPath, [daemonEntry(), '--config', place.config], { detached: true, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', () => (exited = -1));
  const started = Date.now();
  try {
    for (;;) {
      if (exited !== undefined) {
        throw new ToolError('UNAVAILABLE', `mcpkit daemon did not start (exit code ${exited}):\n${tail(log)}`, {
          details: { log },
          hint: `Run "mcpkit daemon run --config ${place.config}" to see it in the foreground.`,
        });
      }
      // Up once it answers and its record names it: the socket is public a moment before the
      // record is written, and whoever reads the record next (status, stop) must find it.
      const socket = await connect(place);
      socket?.destroy();
      if (socket && recordedPid(place) === child.pid) return { pid: child.pid!, log };
      if (Date.now() - started > timeoutMs) {
        child.kill('SIGTERM');
        throw new ToolError('TIMEOUT', `mcpkit daemon did not answer within ${timeoutMs} ms.`, { details: { log }, hint: `Read its log: ${log}` });
      }
      await new Promise((r) => setTimeout(r, 40));
    }
  } finally {
    child.unref();
  }
}

/** The pid the daemon's record beside its socket names, if there is one. */
function recordedPid(place: DaemonPlace): number | undefined {
  try {
    return (JSON.parse(readFileSync(place.info, 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-8).join('\n');
  } catch {
    return '(no log)';
  }
}
