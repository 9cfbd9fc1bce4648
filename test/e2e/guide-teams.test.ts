import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, stopChild, tempDir } from '../helpers/cli.js';
import { shellLines, type ReadmeLine } from '../helpers/readme-lines.js';
import { runDocLine } from '../helpers/doc-stand-ins.js';
import { serveHttpAsCli } from '../helpers/in-process.js';
import { serveHttpChild } from '../helpers/serve.js';
import { SERVERS, waitFor } from '../helpers/upstreams.js';
import { redisFor, startRedis, STORE_KEY, type RunningRedis } from '../support/redis-server.js';

/**
 * The guide's team and scaling-out pages (docs/guide/teams.md, scaling-out.md): their shell lines,
 * run as written (read from the pages, never retyped) in bash, in the folder of a config whose serve section is all variables
 * (`${REPLICA_ID}`, `${MCPKIT_STORE_URL}`, `${MCPKIT_STORE_KEY}`, an admin token from
 * `${file:admin.token}`, a server key from `${file:github.token}`), while two `serve --http`
 * replicas share a real redis-server: r1 in this process (test/helpers/in-process.ts: the same
 * serve, without a process start), r2 a process of its own, so that what reaches both crossed
 * from one process to another. After the lines that change something, both replicas are
 * seen to follow: a token issued, kept by `set`, working beside its successor through a grace,
 * expired, revoked; a secret file rotated; `gateway status` listing both. Lines marked `# illustrative: REASON` are skipped, and
 * only those.
 */

const withRedis = redisFor("the guide's team and scaling-out lines");
const page = (name: string) => readFileSync(join(ROOT, 'docs/guide', name), 'utf8');
const LINES: ReadmeLine[] = [...shellLines(page('teams.md')), ...shellLines(page('scaling-out.md'))];

describe.skipIf(!withRedis)("the guide's team and scaling-out lines, over two replicas and a store", () => {
  let redis: RunningRedis;
  let work: string;
  let shellEnv: NodeJS.ProcessEnv;
  const replicas: { url: string; stop(): Promise<void> }[] = [];
  const opened: Client[] = [];
  const ADMIN = 'admin-token-of-the-test-gateway';

  beforeAll(async () => {
    redis = await startRedis();
    work = tempDir('mcpkit-readme-teams-');
    const bin = join(work, '.bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'mcpkit'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'mcpkit'), 0o755);
    writeFileSync(join(work, 'admin.token'), `${ADMIN}\n`);
    writeFileSync(join(work, 'github.token'), 'github-key-v1\n');
    writeFileSync(join(work, 'audit.jsonl'), '');
    const config = {
      mcp_servers: { github: { ...SERVERS.everythingProcess, env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${file:github.token}' } } },
      tool_views: { research: { servers: ['github'] } },
      serve: {
        replica_id: '${REPLICA_ID}',
        token: '${file:admin.token}',
        audit_log: 'audit.jsonl',
        exposure: 'direct', // the admin calls github__get-env by name
        store: { url: '${MCPKIT_STORE_URL}', key: '${MCPKIT_STORE_KEY}', prefix: 'team-gateway' },
      },
    };
    writeFileSync(join(work, 'mcpkit.yaml'), JSON.stringify(config, null, 2));
    const common = { MCPKIT_STORE_URL: redis.url, MCPKIT_STORE_KEY: STORE_KEY, RELEASE_AGENT_GITHUB_TOKEN: 'gh-of-the-release-agent' };
    // The operator's shell: the config found as ./mcpkit.yaml, mcpkit on the PATH, no replica id.
    shellEnv = cleanEnv({ ...common, PATH: `${bin}:${process.env.PATH}`, HOME: work, ADMIN_TOKEN: ADMIN });
    const file = join(work, 'mcpkit.yaml');
    // As the process is started: its default exposure, a clean environment with the replica's id.
    const here = await serveHttpAsCli(file, { env: cleanEnv({ ...common, REPLICA_ID: 'r1' }) });
    replicas.push({ url: here.url, stop: () => here.close() });
    const there = await serveHttpChild(file, [], { ...common, REPLICA_ID: 'r2' });
    replicas.push({ url: there.url, stop: () => stopChild(there.child) });
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((c) => c.close()));
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await redis?.stop();
  });

  /** Runs one line in the config's folder as a user's shell would (a plain mcpkit line in this process), stdin closed. */
  function runLine(command: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return runDocLine(command, { home: work, work, env: { ...shellEnv, ...extraEnv } });
  }

  /** How a replica answers a token's initialize on a route: its HTTP status and WWW-Authenticate. */
  async function knock(replica: number, token: string, route = '/view/research/mcp') {
    const response = await fetch(`${replicas[replica]!.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme-teams', version: '1.0' } },
      }),
    });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
  }

  /** Polls until every replica answers the token with `status` (an edit reaches each on its own). */
  async function everyReplicaAnswers(token: string, status: number): Promise<void> {
    const seen: number[] = [];
    const ok = await waitFor(
      async () => {
        const answers = await Promise.all(replicas.map((_, i) => knock(i, token)));
        seen.splice(0, seen.length, ...answers.map((a) => a.status));
        return answers.every((a) => a.status === status);
      },
      30_000,
      200,
    );
    expect(ok, `replicas answered ${seen.join(', ')}, not ${status}`).toBe(true);
  }

  /** The upstream's GITHUB_PERSONAL_ACCESS_TOKEN as a replica's github server sees it, or `(not listed)`. */
  async function githubKeyOn(replica: number): Promise<string> {
    const client = new Client({ name: 'readme-teams-admin', version: '1.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${replicas[replica]!.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ADMIN}` } } }),
    );
    opened.push(client);
    try {
      // While its connection restarts for a new secret, the server's tools are briefly not listed.
      if (!(await client.listTools()).tools.some((t) => t.name === 'github__get-env')) return '(not listed)';
      const result = (await client.callTool({ name: 'github__get-env', arguments: {} }, { timeout: 30_000 })) as CallToolResult;
      const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('');
      return (JSON.parse(text) as Record<string, string>).GITHUB_PERSONAL_ACCESS_TOKEN ?? '';
    } finally {
      await client.close();
    }
  }

  const clientsInFile = () =>
    (parse(readFileSync(join(work, 'mcpkit.yaml'), 'utf8')) as { serve: { clients?: Record<string, Record<string, unknown>> } }).serve.clients ?? {};

  const issued: Record<string, string> = {};

  /** What the pages promise of a line beyond its exit code, checked against both replicas. */
  const PROMISES: [RegExp, (out: string) => Promise<void>][] = [
    [
      /^mcpkit clients add ci-bot /,
      async (out) => {
        issued.first = out.trim();
        expect(issued.first).toMatch(/^mcpk_[A-Za-z0-9_-]{43}$/);
        const expires = Date.parse(clientsInFile()['ci-bot']!.token_expires as string);
        expect(expires).toBeGreaterThan(Date.now() + 29 * 86_400_000);
        await everyReplicaAnswers(issued.first, 200);
      },
    ],
    [
      /^mcpkit clients set ci-bot /,
      async () => {
        expect(clientsInFile()['ci-bot']).toMatchObject({ rate: '10/min', max_concurrent: 2 });
        await everyReplicaAnswers(issued.first!, 200); // the token stays
      },
    ],
    [
      /^mcpkit clients rotate ci-bot --grace/,
      async (out) => {
        issued.second = out.trim();
        expect(issued.second).toMatch(/^mcpk_/);
        expect(issued.second).not.toBe(issued.first);
        expect(Date.parse(clientsInFile()['ci-bot']!.previous_token_until as string)).toBeGreaterThan(Date.now() + 5 * 60_000);
        await everyReplicaAnswers(issued.second, 200);
        await everyReplicaAnswers(issued.first!, 200); // in its grace
      },
    ],
    [
      /^mcpkit clients remove ci-bot/,
      async () => {
        expect(clientsInFile()['ci-bot']).toBeUndefined();
        await everyReplicaAnswers(issued.second!, 401);
        await everyReplicaAnswers(issued.first!, 401);
      },
    ],
    [
      /> github\.token$/,
      async () => {
        expect(readFileSync(join(work, 'github.token'), 'utf8')).toBe('github-key-v2\n');
        for (const replica of [0, 1]) expect(await waitFor(async () => (await githubKeyOn(replica)) === 'github-key-v2', 30_000, 250)).toBe(true);
      },
    ],
    [
      /^MCPKIT_TOKEN=\$ADMIN_TOKEN mcpkit gateway status /,
      async (out) => {
        // Both replicas from the store, one config: every edit above reached each of them.
        expect(out).toContain(`ok: 2 replica(s), one config (${replicas[0]!.url}/health)`);
        expect(out).toMatch(/^r1 \(answered\)\s/m);
        expect(out).toMatch(/^r2\s/m);
      },
    ],
  ];

  // The two tests run at once: the token's 15 s to expire pass while the lines run. Neither looks at
  // the other's client (ci-bot, short-lived), and the config's lock orders their edits.
  it.concurrent('runs every line but the illustrative ones, each as the page says it ends, and both replicas follow', async () => {
    const skipped = LINES.filter((l) => l.illustrative);
    // Each mark says why: the keyring's line, and a dry run that needs GitHub's own server (create_issue), cannot run here.
    expect(skipped.map((l) => l.command)).toEqual([
      `mcpkit clients --who release-agent --tool github__create_issue --args '{"repo":"acme/app"}'`,
      `printf '%s' "$NEW_GITHUB_TOKEN" | mcpkit secret set github-token`,
    ]);
    expect(skipped.every((l) => l.illustrative!.length > 10)).toBe(true);
    for (const replica of [0, 1]) expect(await githubKeyOn(replica)).toBe('github-key-v1');

    const kept = new Set<RegExp>();
    for (const line of LINES.filter((l) => !l.illustrative)) {
      const ran = await runLine(line.command, { NEW_GITHUB_TOKEN: 'github-key-v2', GATEWAY_URL: replicas[0]!.url });
      // A line whose comment names its exit code ends with it ("exit code 1: it may not"); every other with 0.
      const expected = Number(/exit code (\d+)/.exec(line.comment)?.[1] ?? 0);
      expect(ran.code, `${line.command}\n${ran.stderr}`).toBe(expected);
      for (const [pattern, check] of PROMISES) {
        if (!pattern.test(line.command)) continue;
        kept.add(pattern);
        await check(ran.stdout);
      }
    }
    // Every promise met a line: a line reworded away from its check fails here, not silently.
    expect([...kept].length).toBe(PROMISES.length);
  }, 300_000);

  it.concurrent('a token issued to expire works on both replicas, then is refused there, saying it expired', async () => {
    // Long enough for both replicas to take the edit on a loaded machine before it runs out: at load
    // 23 on 2 cores the line and both replicas' reloads took 3 s of it; 15 s is 5x that.
    const added = await runLine('mcpkit clients add short-lived --view research --expires 15s');
    expect(added.code, added.stderr).toBe(0);
    const token = added.stdout.trim();
    await everyReplicaAnswers(token, 200);
    const challenges: string[] = [];
    const refused = await waitFor(
      async () => {
        const answers = await Promise.all(replicas.map((_, i) => knock(i, token)));
        challenges.splice(0, challenges.length, ...answers.map((a) => `${a.status} ${a.challenge}`));
        return answers.every((a) => a.status === 401 && /error="invalid_token".*expired/.test(a.challenge));
      },
      60_000,
      250,
    );
    expect(refused, challenges.join('\n')).toBe(true);
  }, 120_000);
});
