import { appendFileSync, chmodSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BIN, ROOT, cleanEnv, runCommand, spawnTracked, tempDir, type PipedChild, type RunResult } from './cli.js';
import { linkTree } from './link-tree.js';
import { serveHttpAsCli } from './in-process.js';
import { EVERYTHING_BUNDLE, MEMORY_BUNDLE, SERVERS, waitFor } from './upstreams.js';
import { startGithubStandin } from '../support/github-standin.mjs';
import { startRegistry } from '../fixtures/registry-server.mjs';
import { startArango } from '../support/arango-server.mjs';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/authorization-server.js';

/**
 * What stands in, when the docs' lines run in a test, for what needs a network, Docker or a
 * browser. Each substitution is listed here and nowhere else: packages npx would download are the
 * reference servers from node_modules; GitHub's MCP server is test/support/github-standin.mjs;
 * Linear is mcpkit itself behind `serve.auth` with a local authorization server (whose page
 * consents at once, so a "browser" that follows redirects logs in); registries are the local
 * registry over real entries; Docker's ArangoDB is the ArangoDB API test server.
 */

/** The URLs the stand-ins answer on, once started. */
export interface StandIns {
  github: string;
  linear: string;
  registry: string;
  arango: string;
  close(): Promise<void>;
}

/** npm packages the docs name, and the node_modules bundle that runs instead (with its arguments). */
const PACKAGES: Record<string, readonly string[]> = {
  '@modelcontextprotocol/server-everything': [EVERYTHING_BUNDLE, 'stdio'],
  '@modelcontextprotocol/server-memory': [MEMORY_BUNDLE],
  '@modelcontextprotocol/server-filesystem': SERVERS.filesystem('').args.slice(0, 1),
  '@playwright/mcp': [EVERYTHING_BUNDLE, 'stdio'],
};

/** A docs line with the packages npx would download run from node_modules instead. Pure. */
export function standInPackages(command: string): string {
  let line = command;
  for (const [name, args] of Object.entries(PACKAGES)) {
    line = line
      .replace(`--command npx --arg -y --arg ${name}`, `--command ${process.execPath} ${args.map((a) => `--arg ${a}`).join(' ')}`)
      .replace(`-- npx -y ${name}`, `-- ${process.execPath} ${args.join(' ')}`);
  }
  return line;
}

/** A docs line with every stand-in put in. Pure. */
export function standIn(command: string, s: Pick<StandIns, 'github' | 'linear' | 'registry' | 'arango'>): string {
  return standInPackages(command)
    .replace('https://api.githubcopilot.com/mcp/', s.github)
    .replace('https://mcp.linear.app/mcp', s.linear)
    .replace(/https:\/\/(registry\.example\.com|mcp\.company\.example)/, s.registry)
    .replace('ARANGO_URL=http://localhost:8529', `ARANGO_URL=${s.arango}`);
}

/** Starts every stand-in at once; `close` ends them. */
export async function startStandIns(): Promise<StandIns> {
  // GitHub's stand-in too serves in this process, as the registry and ArangoDB do: a remote
  // server, not what the lines test (as a process it cost a Node start, ~0.3 CPU-s).
  const [registry, arango, auth, github] = await Promise.all([
    startRegistry(),
    startArango({ password: 'mcpkit', closeConnections: true }),
    startAuthorizationServer(),
    startGithubStandin('tour-token'),
  ]);
  const protectedConfig = join(tempDir('mcpkit-linear-'), 'mcpkit.yaml');
  writeFileSync(protectedConfig, JSON.stringify({ serve: { auth: { issuer: auth.issuer } } }));
  // In this process: a stand-in, not what the lines test (a serve --http process is about a CPU-second).
  const linear = await serveHttpAsCli(protectedConfig);
  return {
    github: github.url,
    linear: `${linear.url}/mcp`,
    registry: registry.url,
    arango: arango.url,
    close: async () => {
      await Promise.allSettled([registry.close(), arango.close(), auth.close(), github.close(), linear.close()]);
    },
  };
}

export type { TestAuthorizationServer };

/** A newcomer's machine: a home, a project folder, `mcpkit` on the PATH, nothing else of ours. */
export interface DocPlace {
  home: string;
  work: string;
  env: NodeJS.ProcessEnv;
}

export function docPlace(prefix: string, extraEnv: Record<string, string> = {}): DocPlace {
  const home = tempDir(`${prefix}-home-`);
  const work = join(home, 'project');
  const bin = join(home, 'bin');
  mkdirSync(work);
  mkdirSync(bin);
  writeFileSync(join(bin, 'mcpkit'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mcpkit'), 0o755);
  const env = cleanEnv({
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    PATH: `${bin}:${process.env.PATH}`,
    ...extraEnv,
  });
  return { home, work, env };
}

/** A copy of what a clone holds that the retrieve examples read (they name its files); linkCloneFiles puts it in a project. */
export function copyCloneFiles(): string {
  const clone = tempDir('mcpkit-doc-clone-');
  for (const part of ['README.md', 'docs', 'src']) cpSync(join(ROOT, part), join(clone, part), { recursive: true });
  return clone;
}

/**
 * The files of `clone` (copyCloneFiles) in `work`, as hard links (./link-tree.ts), so the pages
 * that read a clone share one copy. Links to that copy, never to this checkout: a line that wrote
 * to one would change the copy, not the repository (the pages' lines only read them).
 */
export function linkCloneFiles(clone: string, work: string): void {
  for (const entry of readdirSync(clone, { withFileTypes: true })) {
    if (entry.isDirectory()) linkTree(join(clone, entry.name), join(work, entry.name));
    else linkSync(join(clone, entry.name), join(work, entry.name));
  }
}

/** Ends the daemons a place's lines started and did not stop (a line failed before `daemon stop`). */
export function stopDaemons(place: DocPlace): void {
  const folder = join(place.home, 'run/mcpkit');
  for (const file of existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : []) {
    try {
      process.kill((JSON.parse(readFileSync(join(folder, file), 'utf8')) as { pid: number }).pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
}

/**
 * A line's words when a shell would give them unchanged (no expansion, pipe or redirection), else
 * undefined; `home`: a word's leading `~/` is that folder, as the shell's. Pure.
 */
export function plainWords(line: string, home?: string): string[] | undefined {
  const plain = plainLine(line, home);
  return plain && plain.stdoutTo === undefined ? plain.words : undefined;
}

/** One word as the shell reads it: quoted ('...', or "..." with no expansion in it), or plain (an unquoted `~/` first). */
const WORD = /(?:'([^']*)'|"((?:[^"$`\\]|\\[^$`"\\\n])*)"|(~\/)?([^\s'"|&;<>()$`\\~*?[\]{}!#]+))(?=\s|$)/y;

/**
 * A line's words, and the file its stdout goes to (a last `> FILE`), when the shell would give the
 * words unchanged: nothing is expanded but a leading `~/` (to `home`; none given: the shell's),
 * no pipe, no other redirection. A word that starts with `#` starts a comment, to the line's end;
 * in double quotes a backslash is kept but before $ ` " \ (the shell's rules). Else undefined. Pure.
 */
export function plainLine(line: string, home?: string): { words: string[]; stdoutTo?: string } | undefined {
  const words: string[] = [];
  let stdoutTo: string | undefined;
  let at = 0;
  const next = () => {
    while (/\s/.test(line[at] ?? '')) at++;
    return line[at];
  };
  while (next() !== undefined && line[at] !== '#') {
    if (stdoutTo !== undefined) return undefined; // a word after the redirection's file
    const redirect = line[at] === '>';
    if (redirect) {
      at++;
      if (words.length === 0 || next() === undefined) return undefined;
    }
    WORD.lastIndex = at;
    const m = WORD.exec(line);
    if (!m || (m[3] !== undefined && home === undefined)) return undefined;
    at = WORD.lastIndex;
    const word = m[1] ?? m[2] ?? `${m[3] !== undefined ? `${home}/` : ''}${m[4]}`;
    if (redirect) stdoutTo = word;
    else words.push(word);
  }
  // `NAME=value command`: the shell's assignment, not a word.
  if (words.length === 0 || /^\w+=/.test(words[0]!)) return undefined;
  return stdoutTo === undefined ? { words } : { words, stdoutTo };
}

/**
 * Runs one docs line as a user's shell would, in `place`. A plain `mcpkit` line (plainLine: no
 * expansion but `~/`, no pipe, no redirection but a last `> FILE`) runs in this process (runCommand: the built CLI, its own environment,
 * folder, output and exit code), which costs no process start; any other line runs in bash.
 * `processes` runs every line in bash (a page about processes: the daemon).
 */
export async function runDocLine(line: string, place: DocPlace, processes = false): Promise<RunResult> {
  const plain = processes ? undefined : plainLine(line, place.env.HOME);
  const words = plain?.words;
  // A global flag before the command is bin/run.js's to move: that line runs as a process.
  if (words?.[0] === 'mcpkit' && !words[1]?.startsWith('-')) {
    if (plain?.stdoutTo === undefined) return runCommand(words.slice(1), { env: place.env, cwd: place.work });
    // `> FILE`: the shell makes (or empties) the file before the command runs, and its stdout goes there.
    const file = resolve(place.work, plain.stdoutTo);
    writeFileSync(file, '');
    const ran = await runCommand(words.slice(1), { env: place.env, cwd: place.work });
    appendFileSync(file, ran.stdout);
    return { ...ran, stdout: '' };
  }
  return new Promise((resolve) => {
    const child = spawnTracked('bash', ['-c', line], { cwd: place.work, env: place.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

/** Starts a line that serves until stopped; once its stderr shows `ready`, stops it (SIGTERM) and says how it ended. */
export async function runServingLine(line: string, place: DocPlace, ready: RegExp): Promise<{ up: boolean; code: number | null; stderr: string }> {
  const child: PipedChild = spawnTracked('bash', ['-c', `exec ${line}`], { cwd: place.work, env: place.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const up = await waitFor(() => ready.test(stderr) || child.exitCode !== null, 60_000);
  const exited = new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
  child.kill('SIGTERM');
  return { up: up && ready.test(stderr), code: await exited, stderr };
}
