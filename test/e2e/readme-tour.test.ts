import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, spawnTracked, stopChild, tempDir, type PipedChild } from '../helpers/cli.js';
import { FIXTURE_SERVERS, SERVERS, waitFor } from '../helpers/upstreams.js';
import { startRegistry } from '../fixtures/registry-server.mjs';
import { startArango } from '../support/arango-server.mjs';
import { startAuthorizationServer, type TestAuthorizationServer } from '../support/authorization-server.js';

/**
 * The README's tour, run as written: every shell line under "## Tour", in order, in one temporary
 * folder and home, through a `mcpkit` on the PATH, each expected to end with exit 0. Only what
 * cannot run here is stood in for, and each stand-in is listed below: remote servers and
 * registries are local ones, Docker's ArangoDB is the ArangoDB API test server, and packages that
 * npx would download are the reference servers from node_modules. When a README line stops
 * working as shown, this test names it.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface TourLine {
  section: string;
  command: string;
}

/** The `sh` blocks between "## Tour" and the next top-level section, a command per line, comments dropped. */
function tourLines(): TourLine[] {
  const start = README.indexOf('\n## Tour');
  const end = README.indexOf('\n## ', start + 1);
  const tour = README.slice(start, end);
  const lines: TourLine[] = [];
  let section = 'Tour';
  let inBlock = false;
  for (const raw of tour.split('\n')) {
    if (raw.startsWith('### ')) section = raw.slice(4);
    if (raw.startsWith('```')) {
      inBlock = raw === '```sh' ? true : false;
      continue;
    }
    if (!inBlock) continue;
    const command = raw.replace(/\s{2,}#.*$/, '').trim();
    if (command && !command.startsWith('#')) lines.push({ section, command });
  }
  return lines;
}

/** What the tour promises of a few lines beyond their exit code: a line starting so prints this. */
const PROMISES: [string, string][] = [
  ['mcpkit call everything__echo', 'Echo: hi'],
  ['mcpkit call sum-then-echo', 'the sum: The sum of 2 and 3 is 5.'],
  // Every match: the file that defines it is among them (the default limit, 200, stops in the files before src/core).
  ['mcpkit retrieve search ToolError --limit 0', 'src/core/errors.ts'],
  ['mcpkit retrieve search ToolError', 'README.md:'],
  ['mcpkit retrieve cat docs/ARCHITECTURE.md', '# Architecture'],
  ['mcpkit config path', '.config/mcpkit/config.yaml'], // before config init --local: the user's file
  ['mcpkit arango build-query users --filters', 'Ada'],
  ['mcpkit arango build-query users --fields name --no-execute', 'FOR doc IN'],
  ['mcpkit server test everything', 'echo'],
  ['mcpkit server login linear', 'Logged in to linear'],
  ['mcpkit stats --since 1h', 'call(s)'], // the log serve --audit-log wrote just before
];

const everythingPath = SERVERS.everything.args[0]!;

let home: string;
let work: string;
let env: NodeJS.ProcessEnv;
let github: PipedChild;
let githubUrl: string;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let authServer: TestAuthorizationServer;
let protectedUrl: string;
let arango: Awaited<ReturnType<typeof startArango>>;

/**
 * What stands in for what cannot run here, applied to a line before it runs. `skip` lines are
 * left out (with the reason); `serving` lines start a server that keeps running: they must come
 * up, and are then stopped.
 */
function standIn(command: string): { command: string; skip?: string; serving?: RegExp } {
  if (command === 'docker compose up -d') return { command, skip: 'no Docker engine here; the ArangoDB API test server runs instead' };
  let c = command
    .replace('--command npx --arg -y --arg @modelcontextprotocol/server-everything', `--command ${process.execPath} --arg ${everythingPath} --arg stdio`)
    .replace('https://api.githubcopilot.com/mcp/', githubUrl)
    .replace('https://mcp.linear.app/mcp', protectedUrl)
    .replace(/https:\/\/(registry\.example\.com|mcp\.company\.example)/, registry.url)
    .replace('-- npx -y @playwright/mcp', `-- ${process.execPath} ${everythingPath} stdio`)
    .replace('ARANGO_URL=http://localhost:8529', `ARANGO_URL=${arango.url}`);
  if (/^mcpkit serve --http\b/.test(c)) {
    c = `${c} --port 0`; // the README's default port 8000 may be taken on a test machine
    return { command: c, serving: /listening on http:\/\/127\.0\.0\.1:\d+/ };
  }
  return { command: c };
}

/** Runs one line in bash (quotes, ~, $VAR and > as a user's shell has them), stdin closed. */
function runLine(command: string, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnTracked('bash', ['-c', command], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => void stopChild(child), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end();
  });
}

/** Starts a line that serves until stopped; resolves once its stderr shows `ready`, then stops it. */
async function runServing(command: string, ready: RegExp): Promise<{ up: boolean; code: number | null; stderr: string }> {
  const child = spawnTracked('bash', ['-c', `exec ${command}`], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const up = await waitFor(() => ready.test(stderr), 60_000); // a loaded CI machine starts serve slowly
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const code = await exited;
  return { up, code, stderr };
}

/** Edits the tour's config between sections, as the stand-ins need (a registry URL, a package). */
function editConfig(change: (doc: ReturnType<typeof parseDocument>) => void): void {
  const file = join(work, 'mcpkit.yaml');
  const doc = parseDocument(readFileSync(file, 'utf8'));
  change(doc);
  writeFileSync(file, doc.toString());
}

beforeAll(async () => {
  home = tempDir('mcpkit-tour-home-');
  work = tempDir('mcpkit-tour-');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mcpkit'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'mcpkit'), 0o755);

  // What the retrieve lines read: the current folder is the root "code", holding what a fresh
  // clone holds there (the README names its files).
  for (const part of ['README.md', 'docs', 'src']) cpSync(join(ROOT, part), join(work, part), { recursive: true });
  // What `server import` reads.
  mkdirSync(join(home, '.config/Claude'), { recursive: true });
  writeFileSync(join(home, '.config/Claude/claude_desktop_config.json'), JSON.stringify({ mcpServers: { notes: SERVERS.memory } }));

  github = spawnTracked(process.execPath, [FIXTURE_SERVERS.githubStandin, 'tour-token'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  github.stdout.on('data', (d) => (out += d));
  if (!(await waitFor(() => out.includes('listening'), 10_000))) throw new Error('the GitHub stand-in did not start');
  githubUrl = /listening (\S+)/.exec(out)![1]!;
  [registry, arango] = await Promise.all([startRegistry(), startArango({ password: 'mcpkit' })]);
  // Linear stands in as mcpkit itself behind serve.auth, with a local authorization server.
  authServer = await startAuthorizationServer();
  const protectedConfig = join(home, 'protected.yaml');
  writeFileSync(protectedConfig, JSON.stringify({ serve: { auth: { issuer: authServer.issuer } } }));
  const linear = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', protectedConfig], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let linearErr = '';
  linear.stderr.on('data', (d) => (linearErr += d));
  if (!(await waitFor(() => /listening on (http:\/\/\S+)\/mcp/.test(linearErr), 20_000))) throw new Error(`the Linear stand-in did not start: ${linearErr}`);
  protectedUrl = `${/listening on (http:\/\/\S+)\/mcp/.exec(linearErr)![1]}/mcp`;

  env = cleanEnv({
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
    PATH: `${bin}:${process.env.PATH}`,
    GITHUB_TOKEN: 'tour-token',
    // The stand-in authorization page consents at once: a "browser" that follows its redirect logs in.
    BROWSER: `"${process.execPath}" "${join(ROOT, 'test/conformance/follow-redirects.mjs')}"`,
    MCPKIT_TOKEN: 'tour-http-token',
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([registry?.close(), arango?.close(), github && stopChild(github), authServer?.close()]);
  // A daemon the tour started and did not stop (a line failed before "mcpkit daemon stop").
  const folder = join(home ?? '', 'run/mcpkit');
  for (const file of existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : []) {
    try {
      process.kill((JSON.parse(readFileSync(join(folder, file), 'utf8')) as { pid: number }).pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});

describe('the README tour runs as written', () => {
  const lines = tourLines();

  it('has the lines this test expects to stand in for', () => {
    const all = lines.map((l) => l.command).join('\n');
    expect(lines.length).toBeGreaterThan(40);
    for (const expected of [
      'docker compose up -d',
      'https://api.githubcopilot.com/mcp/',
      'https://mcp.linear.app/mcp',
      'mcpkit server login linear',
      '@modelcontextprotocol/server-everything',
      'mcpkit serve --http',
    ])
      expect(all).toContain(expected);
  });

  it('every line works, in order', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    let section = '';
    for (const line of lines) {
      if (line.section !== section) {
        section = line.section;
        // Between sections: point the built-in registry at the local one, and run what
        // `registry add` wrote (an npm package) from node_modules instead of the network.
        if (section.startsWith('MCP registries')) editConfig((doc) => doc.setIn(['registry', 'sources', 'official'], doc.createNode({ url: registry.url })));
        if (section.startsWith('ArangoDB')) editConfig((doc) => doc.setIn(['mcp_servers', 'magic'], doc.createNode(SERVERS.memory)));
      }
      const stood = standIn(line.command);
      if (stood.skip) continue;
      if (stood.command.startsWith('export ')) {
        for (const [, key, value] of stood.command.slice(7).matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
        continue;
      }
      if (stood.serving) {
        const r = await runServing(stood.command, stood.serving);
        if (!r.up || r.code !== 0)
          failures.push(
            `${line.command}\n  (${section}) did not come up and stop cleanly: up=${r.up} exit=${r.code}\n  ${r.stderr.trim().split('\n').slice(-5).join('\n  ')}`,
          );
        continue;
      }
      const r = await runLine(stood.command);
      if (r.code !== 0) failures.push(`${line.command}\n  (${section}) exit ${r.code}\n  ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join('\n  ')}`);
      // What the tour promises of a few lines, beyond their exit code.
      const promised = PROMISES.find(([start]) => line.command.startsWith(start));
      if (r.code === 0 && promised && !r.stdout.includes(promised[1]))
        failures.push(`${line.command}\n  (${section}) printed no "${promised[1]}":\n  ${r.stdout.trim()}`);
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
