import { existsSync, lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { processAlive } from '../../core/process-alive.js';
import { ToolError } from '../../core/errors.js';
import { buildIdentity } from '../../core/version.js';
import { checkPrivateFolder, daemonPlace, type DaemonPlace } from './place.js';
import { encodeLine, fromWire, lineReader, type BypassReason, type DaemonMessage, type DaemonOperation } from './protocol.js';
import type { WaitKind } from '../../app/runtime-options.js';

/**
 * A terminal command's way to `mcpkit daemon`: when one runs for the command's config, the work
 * is done there (warm connections, the file index) and the command prints what comes back with
 * its own renderer, so the output is the same either way. Light on purpose: it runs before
 * anything else a command loads.
 */
export type DaemonAnswer =
  | { kind: 'done'; result: unknown }
  /** No daemon for this config (or a dead one, now cleaned away): the command does the work itself. */
  | { kind: 'absent' }
  /** A daemon that must not do this work (another build, another environment): the command does it itself. */
  | { kind: 'bypass'; reason: BypassReason; detail: string };

export interface DaemonHandlers {
  item?: (item: unknown) => void;
  /** What a whole command (DaemonOperation command) prints. */
  out?: (text: string) => void;
  err?: (text: string) => void;
  waiting?: (message: string, kind?: WaitKind) => void;
  /**
   * A line another program runs in its own process (cli/in-process.ts): what one line learned of
   * the daemon does not hold for the next, since a daemon may start or be replaced between two
   * lines, so it is neither remembered nor read from the process's memo.
   */
  hosted?: boolean;
}

/** Whether the terminal may use a daemon at all: not with --no-daemon or MCPKIT_NO_DAEMON=1. */
export function daemonAllowed(env: NodeJS.ProcessEnv, noDaemonFlag: boolean | undefined): boolean {
  if (noDaemonFlag) return false;
  const off = env.MCPKIT_NO_DAEMON?.trim().toLowerCase();
  return off === undefined || off === '' || off === '0' || off === 'false';
}

/**
 * What a process learned of its daemon that holds for its life: none runs, or it answered bypass
 * for its build or environment. A fast path that fell back to oclif's command is not asked twice.
 * Kept on the global object: the fast path is a bundle of its own (dist/cli/daemon-fast-path.cjs), with
 * its own copy of this module.
 */
const SETTLED = Symbol.for('mcpkit.daemon.settled');
const memo = globalThis as { [SETTLED]?: Exclude<DaemonAnswer, { kind: 'done' }> };

/** Forgets what this process learned of its daemon (a command that just started one asks it again). */
export function forgetDaemonAnswer(): void {
  delete memo[SETTLED];
}

export async function viaDaemon(
  configPath: string,
  operation: DaemonOperation,
  handlers: DaemonHandlers = {},
  env = process.env,
  cwd = process.cwd(),
): Promise<DaemonAnswer> {
  if (!handlers.hosted && memo[SETTLED]) return memo[SETTLED];
  const place = daemonPlace(configPath, env);
  const socket = await reach(place);
  if (!socket) {
    const absent: DaemonAnswer = { kind: 'absent' };
    if (!handlers.hosted) memo[SETTLED] = absent;
    return absent;
  }
  return exchange(socket, operation, handlers, env, place.config, cwd);
}

/** A connection to the daemon at `place`, or undefined: no socket, one in a folder not ours to trust (`daemon status` says why), or a dead one's. */
async function reach(place: DaemonPlace): Promise<Socket | undefined> {
  if (!existsSync(place.socket)) return undefined;
  try {
    checkPrivateFolder(place.folder);
  } catch {
    return undefined;
  }
  return connect(place);
}

/**
 * A connected socket, or undefined for a daemon that is gone: a socket file that refused us is a
 * dead daemon's, and is removed with its record. Only that very file: a daemon starting meanwhile
 * links a listening socket into the same place (and a missing file is nothing to remove), and a
 * launcher that removed what it found after a refusal took the new daemon's socket away from it.
 */
export function connect(place: DaemonPlace): Promise<Socket | undefined> {
  const refused = socketIdentity(place.socket);
  return new Promise((resolve) => {
    const socket = createConnection(place.socket);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' && refused !== undefined) removeLeftovers(place, refused);
      resolve(undefined);
    });
  });
}

/** The device and inode of a socket file, or undefined when there is none. */
function socketIdentity(path: string): string | undefined {
  try {
    const stat = lstatSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/** A dead daemon's socket (when it is still the file that refused) and its record (when it names a process that is gone). */
export function removeLeftovers(place: DaemonPlace, refused?: string): void {
  try {
    if (refused === undefined || socketIdentity(place.socket) === refused) unlinkSync(place.socket);
  } catch {
    /* removed by another command already */
  }
  try {
    const { pid } = JSON.parse(readFileSync(place.info, 'utf8')) as { pid: number };
    if (!processAlive(pid)) unlinkSync(place.info);
  } catch {
    /* no record */
  }
}

async function exchange(
  socket: Socket,
  operation: DaemonOperation,
  handlers: DaemonHandlers,
  env: NodeJS.ProcessEnv,
  config: string,
  cwd: string,
): Promise<DaemonAnswer> {
  const last = await request(socket, operation, handlers, env, config, cwd);
  if (!last) {
    throw new ToolError('UNAVAILABLE', 'mcpkit daemon ended before it answered; the work may not have been done.', {
      hint: 'See "mcpkit daemon status"; run the command again, or with --no-daemon.',
    });
  }
  if (last.type === 'error') throw fromWire(last.error);
  if (last.type === 'result') return { kind: 'done', result: last.result };
  const answer: DaemonAnswer = { kind: 'bypass', reason: last.reason, detail: last.detail };
  if (last.reason === 'build' || last.reason === 'environment') {
    if (!handlers.hosted) memo[SETTLED] = answer;
    sayBypassed(answer.reason, answer.detail, env);
  }
  return answer;
}

/**
 * A command the daemon would not run is said, once, so that a slow command is not a mystery: on a
 * terminal's stderr, and in a script's only at MCPKIT_LOG_LEVEL debug or info (its stdout is never
 * touched).
 */
function sayBypassed(reason: BypassReason, detail: string, env: NodeJS.ProcessEnv): void {
  const level = env.MCPKIT_LOG_LEVEL;
  if (!process.stderr.isTTY && level !== 'debug' && level !== 'info') return;
  const why = `${detail} (${reason === 'environment' ? 'restart it from this shell to serve it: mcpkit daemon restart' : 'mcpkit daemon restart starts one of this build'})`;
  process.stderr.write(`mcpkit: the daemon of this config did not run this command, which runs here instead: ${why}\n`);
}

/** The message that ends a request: its result, error or bypass. */
export type FinalMessage = Extract<DaemonMessage, { type: 'result' | 'error' | 'bypass' }>;

/**
 * Sends one request on a connected socket; what the daemon says meanwhile goes to `handlers`.
 * Resolves with the message that ends it, or undefined when the daemon closed the connection first.
 */
export function request(
  socket: Socket,
  operation: DaemonOperation,
  handlers: DaemonHandlers,
  env: NodeJS.ProcessEnv,
  config?: string,
  cwd = process.cwd(),
): Promise<FinalMessage | undefined> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      socket.end();
      fn();
    };
    socket.setEncoding('utf8');
    socket.on(
      'data',
      lineReader(
        (raw) => {
          const message = raw as DaemonMessage;
          try {
            if (message.type === 'item') handlers.item?.(message.item);
            else if (message.type === 'waiting') handlers.waiting?.(message.message, message.kind);
            else if (message.type === 'out') handlers.out?.(message.text);
            else if (message.type === 'err') handlers.err?.(message.text);
            else settle(() => resolve(message));
          } catch (error) {
            settle(() => reject(error as Error));
          }
        },
        {
          onBroken: (error) =>
            settle(() =>
              reject(
                new ToolError('UNAVAILABLE', `mcpkit daemon answered with ${error.message}.`, {
                  hint: 'Run "mcpkit daemon restart", or the command with --no-daemon.',
                }),
              ),
            ),
        },
      ),
    );
    socket.on('error', () => undefined); // 'close' follows and says what it means
    socket.on('close', () => settle(() => resolve(undefined)));
    socket.write(encodeLine({ build: buildIdentity(), cwd, env: plainEnv(env), ...(config !== undefined ? { config } : {}), operation }));
  });
}

function plainEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
