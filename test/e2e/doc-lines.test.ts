import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import {
  copyCloneFiles,
  docPlace,
  linkCloneFiles,
  plainWords,
  runDocLine,
  runServingLine,
  standIn,
  startStandIns,
  stopDaemons,
  type DocPlace,
  type StandIns,
} from '../helpers/doc-stand-ins.js';
import { shellLines } from '../helpers/readme-lines.js';
import { SERVERS } from '../helpers/upstreams.js';
import { parseServeArgs, serveOptionsOf } from '../../src/cli/args/serve-args.js';
import { errorObject, exitCodeFor } from '../../src/core/errors.js';
import { createLogger, parseLogLevel } from '../../src/core/logger.js';
import { startHttpServe, startStdioServe } from '../../src/mcp/run-serve.js';

/**
 * The guide's shell lines, run as written (read from the pages, never retyped): each page in a
 * project of its own that starts where the README's quick start ends (servers `everything` and
 * `memory`, view `demo`), the pages at once, a page's lines in order. A line ends with exit 0
 * unless its comment says `exit code N`; a line marked `# illustrative: REASON` is skipped, and
 * only those. What needs a network, Docker or a browser is stood in for
 * (test/helpers/doc-stand-ins.ts). The team and scaling-out pages need redis-server and two
 * replicas: test/e2e/guide-teams.test.ts runs theirs; test/e2e/quick-start.test.ts runs the README's.
 */

const GUIDE = join(ROOT, 'docs/guide');
const ELSEWHERE = ['teams.md', 'scaling-out.md'];

interface Page {
  /**
   * The lines, by how they start, that run in bash as processes: what the page shows of them is a
   * process's (the daemon's start, and the commands bin/run.js hands to a running daemon). A line
   * with --no-daemon is handed to none: it runs as any other line.
   */
  processes?: string[];
  /** Reads a clone's files (its examples name them). */
  clone?: boolean;
  /** What the project holds beyond the quick start's config. */
  prepare?: (place: DocPlace, s: StandIns) => void;
  /** What a line that starts so prints, beyond its exit code. */
  promises?: [string, string][];
}

const PAGES: Record<string, Page> = {
  'terminal.md': { promises: [['mcpkit config show --jq', '"everything"']] },
  'config.md': { promises: [['mcpkit config path', 'project/mcpkit.yaml']] },
  'search.md': {
    clone: true,
    promises: [
      // Every match: the file that defines it is among them (the default limit, 200, may stop before src/core).
      ['mcpkit retrieve search ToolError --limit 0', 'src/core/errors.ts'],
      ['mcpkit retrieve cat docs/ARCHITECTURE.md', '# Architecture'],
    ],
  },
  'registry.md': { prepare: (place, s) => addToConfig(place, `registry:\n  sources:\n    official: { url: ${s.registry} }\n`) },
  'arango.md': {
    // Its lines run in this process as the other pages' do: the ArangoDB API stand-in ends each
    // connection after its answer (doc-stand-ins.ts), so no line's driver reuses a socket the
    // server is closing (ECONNRESET), which a user's lines, each a process, never meet either.
    promises: [
      ['mcpkit arango build-query users --filters', 'Ada'],
      ['mcpkit arango build-query users --fields name --no-execute', 'FOR doc IN'],
    ],
  },
  'proxy.md': {
    prepare: (place) => {
      // What `server import` reads.
      mkdirSync(join(place.home, '.config/Claude'), { recursive: true });
      writeFileSync(join(place.home, '.config/Claude/claude_desktop_config.json'), JSON.stringify({ mcpServers: { notes: SERVERS.memory } }));
    },
    promises: [
      ['mcpkit call everything__echo', 'Echo: hi'],
      ['mcpkit call sum-then-echo', 'the sum: The sum of 2 and 3 is 5.'],
      ['mcpkit server test everything', 'echo'],
    ],
  },
  'code-mode.md': { promises: [['mcpkit code run sum.js', 'The sum of 2 and 3 is 5.']] },
  'gateway.md': {
    // Not `mcpkit tools --cached`: it comes after `daemon stop`, with no daemon to hand it to.
    processes: ['mcpkit daemon start', 'mcpkit call', 'mcpkit retrieve'],
    clone: true,
    promises: [['mcpkit call everything__echo message=hi', 'Echo: hi']],
  },
  'trust.md': { promises: [['mcpkit server test boxed', 'read_graph']] },
  'observability.md': { promises: [['mcpkit stats --since 1h', 'call(s)']] },
  'protocol.md': { promises: [['mcpkit server login linear', 'Logged in to linear']] },
};

/** The quick start's end: its two servers and its view, as its lines write them (with the stand-ins' commands). */
const QUICK_START_CONFIG = {
  mcp_servers: { everything: SERVERS.everything, memory: SERVERS.memory },
  tool_views: { demo: { description: 'Echo, sums and a memory', servers: { everything: { tools: { echo: {}, 'get-sum': {} } }, memory: {} } } },
};

function addToConfig(place: DocPlace, yaml: string): void {
  const file = join(place.work, 'mcpkit.yaml');
  writeFileSync(file, `${readFileSync(file, 'utf8')}${yaml}`);
}

/** One copy of a clone's files for the pages that read them (each links it into its project). */
let clone: string | undefined;

/** Runs a page's lines in order in a fresh project; the failures, each with what it printed. */
async function runPage(file: string, page: Page, s: StandIns): Promise<string[]> {
  const place = docPlace(`mcpkit-doc-${file.replace('.md', '')}`, {
    GITHUB_TOKEN: 'tour-token',
    // The stand-in authorization page consents at once: a "browser" that follows its redirect logs in.
    BROWSER: `"${process.execPath}" "${join(ROOT, 'test/conformance/follow-redirects.mjs')}"`,
    MCPKIT_TOKEN: 'doc-http-token',
  });
  writeFileSync(join(place.work, 'mcpkit.yaml'), stringify(QUICK_START_CONFIG));
  if (page.clone) linkCloneFiles((clone ??= copyCloneFiles()), place.work);
  page.prepare?.(place, s);
  const failures: string[] = [];
  try {
    for (const line of shellLines(readFileSync(join(GUIDE, file), 'utf8')).filter((l) => !l.illustrative)) {
      const command = standIn(line.command, s);
      if (command.startsWith('export ')) {
        for (const [, key, value] of command.slice(7).matchAll(/(\w+)=(\S+)/g)) place.env[key!] = value!;
        continue;
      }
      const asProcess = page.processes?.some((start) => line.command.startsWith(start)) && !/\s--no-daemon\b/.test(line.command);
      const served = !asProcess && /^mcpkit serve\b/.test(command) ? await serveHere(command, place) : undefined;
      if (served) {
        if (served.code !== 0) failures.push(`${line.command}\n  did not ${served.up ? 'stop cleanly' : 'come up'}: exit ${served.code}\n  ${served.stderr}`);
        continue;
      }
      if (/^mcpkit serve --http\b/.test(command)) {
        // The page's port may be taken on a test machine.
        const served = await runServingLine(`${command.replace(/ --port \d+/, '')} --port 0`, place, /listening on http:\/\/127\.0\.0\.1:\d+/);
        if (!served.up || served.code !== 0)
          failures.push(
            `${line.command}\n  did not come up and stop cleanly: exit ${served.code}\n  ${served.stderr.trim().split('\n').slice(-5).join('\n  ')}`,
          );
        continue;
      }
      const ran = await runDocLine(command, place, asProcess);
      const expected = Number(/exit code (\d+)/.exec(line.comment)?.[1] ?? 0);
      if (ran.code !== expected)
        failures.push(`${line.command}\n  exit ${ran.code}, not ${expected}\n  ${(ran.stderr || ran.stdout).trim().split('\n').slice(-6).join('\n  ')}`);
      const promised = page.promises?.find(([start]) => line.command.startsWith(start));
      if (ran.code === expected && promised && !ran.stdout.includes(promised[1]))
        failures.push(`${line.command}\n  printed no "${promised[1]}":\n  ${ran.stdout.trim()}`);
    }
  } finally {
    stopDaemons(place);
  }
  return failures;
}

/**
 * A plain `mcpkit serve` line (what bin/run.js's fast path takes: parseServeArgs), in this process:
 * the line's flags read as the fast path reads them, then what runServe does with them
 * (src/mcp/run-serve.ts): over stdio, a session whose input has ended (the test's stdin, closed),
 * so serve starts, then ends; over HTTP, serve until it listens, then closed as its SIGTERM
 * closes it. `code` is what the process would exit with. Each such line as a process was a
 * serve's start (about a CPU-second over HTTP) on top of the same work; what only the process
 * shows (bin/run.js, stdio framing, signals) is test/e2e/mcp-stdio.test.ts's and http.test.ts's.
 * Undefined: a line the fast path would not take, which runs as a process.
 */
async function serveHere(command: string, place: DocPlace): Promise<{ up: boolean; code: number; stderr: string } | undefined> {
  const words = plainWords(command, place.env.HOME);
  const args = words?.[0] === 'mcpkit' && words[1] === 'serve' ? parseServeArgs(words.slice(2)) : undefined;
  if (!args) return undefined;
  const said: string[] = [];
  const say = (line: string) => void said.push(line);
  // Its log, as the process would write it to its stderr (the line's MCPKIT_LOG_LEVEL, else warn).
  const logger = createLogger(parseLogLevel(place.env.MCPKIT_LOG_LEVEL), (line) => void said.push(line.trimEnd()));
  // The process resolves --audit-log against its folder, the project.
  const options = {
    ...serveOptionsOf(args, '0.0.0-doc'),
    ...(args['audit-log'] ? { auditLog: resolve(place.work, args['audit-log']) } : {}),
    env: place.env,
    cwd: place.work,
  };
  let up = false;
  try {
    if (options.http) {
      // The page's port may be taken on a test machine.
      const http = await startHttpServe({ ...options, http: true, port: 0 }, say, logger);
      up = said.some((line) => /listening on http:\/\/127\.0\.0\.1:\d+/.test(line));
      await http.close();
      return { up, code: up ? 0 : 1, stderr: said.join('\n') };
    }
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    input.end();
    const { ended } = await startStdioServe(options, { input, output }, say, logger);
    up = true;
    await ended;
    return { up, code: 0, stderr: said.join('\n') };
  } catch (error) {
    const e = errorObject(error);
    return { up, code: exitCodeFor(e), stderr: [...said, `Error [${e.code}]: ${e.message}`].join('\n') };
  }
}

let standIns: StandIns;
beforeAll(async () => {
  standIns = await startStandIns();
}, 120_000);
afterAll(async () => {
  await standIns?.close();
});

describe('the guide, run as written', () => {
  it('has a runner for every page but those run elsewhere, and each page a runnable example and promises that meet a line', () => {
    const pages = readdirSync(GUIDE).filter((f) => f.endsWith('.md'));
    expect(pages.filter((f) => !ELSEWHERE.includes(f)).sort()).toEqual(Object.keys(PAGES).sort());
    for (const file of pages) {
      const lines = shellLines(readFileSync(join(GUIDE, file), 'utf8'));
      expect(lines.filter((l) => !l.illustrative).length, `${file} has a line that runs`).toBeGreaterThan(0);
      for (const l of lines.filter((l) => l.illustrative)) expect(l.illustrative!.length, `${file}: ${l.command} says why`).toBeGreaterThan(10);
      for (const [start] of PAGES[file]?.promises ?? [])
        expect(
          lines.some((l) => l.command.startsWith(start)),
          `${file}: a line starts "${start}"`,
        ).toBe(true);
    }
  });

  it('writes every command line of the README and the guide where it runs: in an sh block', () => {
    const files = [join(ROOT, 'README.md'), ...readdirSync(GUIDE).map((f) => join(GUIDE, f))];
    const outside: string[] = [];
    for (const file of files) {
      let fence: string | undefined;
      for (const raw of readFileSync(file, 'utf8').split('\n')) {
        if (raw.startsWith('```')) fence = fence === undefined ? raw.slice(3) : undefined;
        else if (fence !== undefined && fence !== 'sh' && /^\s*(\$ )?mcpkit /.test(raw)) outside.push(`${file}: ${raw}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it.concurrent.each(Object.entries(PAGES))('%s: every line works, in order', { timeout: 420_000 }, async (file, page) => {
    const failures = await runPage(file, page, standIns);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
