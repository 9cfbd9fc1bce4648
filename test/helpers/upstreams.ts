import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { processAlive } from '../../src/core/process-alive.js';
import { ROOT, tempDir } from './cli.js';
import { startable } from './upstream-bundles.js';
import { pooled } from './upstream-pool.js';
import { startArgs } from './upstream-snapshots.js';

/**
 * Real reference servers from npm, started with this node (no npx, no network): the packages' own
 * code, each bundled into one file so that it starts in half the time (test/helpers/upstream-bundles.ts);
 * server-everything and server-memory from their startup snapshots where the suite made them (upstream-snapshots.ts).
 * `SERVERS.everything` and `SERVERS.memory` are sessions of the run's pool instead (upstream-pool.ts):
 * the same server behind a relay process, for every test that is not about the server's process.
 */
/**
 * server-everything's bundle, a script to start or import: for a start that names another transport
 * (sse, streamableHttp), a fixture that imports it, or a config line that takes one script path.
 */
export const EVERYTHING_BUNDLE = startable('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** server-memory's bundle, for a config line that takes one script path (`--arg PATH`). */
export const MEMORY_BUNDLE = startable('node_modules/@modelcontextprotocol/server-memory/dist/index.js');

const EVERYTHING_PROCESS = { command: process.execPath, args: [...startArgs('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] };
const MEMORY_PROCESS = { command: process.execPath, args: startArgs('node_modules/@modelcontextprotocol/server-memory/dist/index.js') };

export const SERVERS = {
  /** A session of the run's server-everything pool where there is one (upstream-pool.ts), else the package's process. */
  everything: pooled('everything', ['stdio']) ?? EVERYTHING_PROCESS,
  /** The package's own process: for a test about the upstream's process (its start, exit, pid, environment, stderr, signals, limits, box). */
  everythingProcess: EVERYTHING_PROCESS,
  /** A session of the run's server-memory pool where there is one (upstream-pool.ts), else the package's process. */
  memory: pooled('memory', []) ?? MEMORY_PROCESS,
  /** The package's own process: for a test about the upstream's process (as everythingProcess). */
  memoryProcess: MEMORY_PROCESS,
  filesystem: (dir: string) => ({ command: process.execPath, args: [startable('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), dir] }),
  silent: { command: process.execPath, args: [join(ROOT, 'test/fixtures/silent-server.mjs')] },
};

/** The fixture servers that load the MCP SDK (test/fixtures), bundled the same way. */
export const FIXTURE_SERVERS = {
  /** A 2026-07-28 server over HTTP. */
  modern: startable('test/fixtures/modern-server.mjs'),
  /** Long calls, as tasks and with progress. */
  tasks: startable('test/fixtures/tasks-server.mjs'),
};

/**
 * The arguments (after `node`) that start these fixtures, before their own: from their startup
 * snapshots where the suite made them (upstream-snapshots.ts), else their bundles.
 */
export const FIXTURE_STARTS = {
  /** Every feature a proxy relays both ways (sampling, elicitation, roots, logging, subscriptions). */
  relay: startArgs('test/fixtures/relay-server.mjs'),
  tasks: startArgs('test/fixtures/tasks-server.mjs'),
};

/**
 * The fixtures as config lines: a session of the run's pool where there is one (upstream-pool.ts),
 * else the fixture's process (FIXTURE_STARTS).
 */
const TASKS_PROCESS = { command: process.execPath, args: FIXTURE_STARTS.tasks };
export const FIXTURES = {
  tasks: pooled('tasks', []) ?? TASKS_PROCESS,
  /** Its own process: for a test about the process (as SERVERS.everythingProcess). */
  tasksProcess: TASKS_PROCESS,
  /** The relay fixture named `name` (its tools' log lines and completions say it). */
  relay: (name = 'relay') => pooled('relay', [name]) ?? relayProcess(name),
  /** Its own process: for a test about the process (its `crash` exits it, where a pooled one drops its connection). */
  relayProcess,
};
function relayProcess(name = 'relay'): { command: string; args: string[] } {
  return { command: process.execPath, args: [...FIXTURE_STARTS.relay, name] };
}

/**
 * The fixture whose tools (and prompts, resources) are read from the JSON file `tools`
 * (test/fixtures/file-tools-server.mjs): a session of the run's pool where there is one
 * (upstream-pool.ts), else its own process.
 */
export function fileTools(tools: string): { command: string; args: string[] } {
  return pooled('file-tools', [tools]) ?? fileToolsProcess(tools);
}
/** The same as a command line: the command, then its arguments (`server add NAME -- ...`). */
export function fileToolsLine(tools: string): string[] {
  const { command, args } = fileTools(tools);
  return [command, ...args];
}
/** The fixture's own process, from its startup snapshot where the suite made one (upstream-snapshots.ts): for a test about the process. */
export function fileToolsProcess(tools: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [...FILE_TOOLS_START, tools] };
}
const FILE_TOOLS_START = startArgs('test/fixtures/file-tools-server.mjs');

export function writeConfig(config: object): string {
  const file = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2)); // JSON is YAML
  return file;
}

/** Direct children of a process (Linux /proc), e.g. the upstream servers mcpkit started. */
export async function childPids(pid: number): Promise<number[]> {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return children ? children.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** Direct children of a process whose command line holds `word` (the upstream servers it started, by name). */
export async function childPidsNamed(pid: number, word: string): Promise<number[]> {
  return (await childPids(pid)).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(word);
    } catch {
      return false;
    }
  });
}

/** Whether a process runs: one that has exited and waits to be reaped (a zombie) does not (src/core/process-alive.ts). */
export function alive(pid: number): boolean {
  return processAlive(pid);
}

export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, step = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, step));
  }
  return check();
}

/** A loopback TCP port free now (a server a test starts on a port it chooses: nginx, a fixture to restart on the same port). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
