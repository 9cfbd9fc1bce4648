import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, runCommand, tempDir } from '../helpers/cli.js';
import { daemonRuntimeDir, type Finished } from '../helpers/daemons.js';
import { alive, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * The daemon answers only for its own project, with the caller's environment, and survives a
 * peer that does not speak its protocol.
 */
const build = () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return `${version}+${(JSON.parse(readFileSync(join(ROOT, 'dist/build.json'), 'utf8')) as { id: string }).id}`;
};

async function daemonPid(run: string): Promise<number> {
  const folder = join(run, 'mcpkit');
  const record = readdirSync(folder).find((f) => f.endsWith('.json'))!;
  return (JSON.parse(readFileSync(join(folder, record), 'utf8')) as { pid: number }).pid;
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe("the daemon answers only for its own project, with the caller's environment, and survives a peer that does not speak its protocol", () => {
  /**
   * One daemon (of a config whose root is its folder, and whose server's environment names a
   * variable) for the tests below: the environment test asks it from callers of their own; the
   * project test asks it from its own folder and from another one; each peer is a connection of its
   * own, and each peer test ends by asking whether the daemon is still well, so a daemon each proved
   * nothing more. They take their turns (it.sequential), so that no test's memory reading counts
   * another's output.
   */
  const ends: (() => Promise<void>)[] = [];
  let daemon: Awaited<ReturnType<typeof started>>;
  beforeAll(async () => {
    daemon = await started((end) => void ends.push(end));
  }, 60_000);
  afterAll(async () => {
    for (const end of ends) await end();
  });

  async function started(finished: Finished) {
    const dir = tempDir();
    const run = daemonRuntimeDir(finished);
    const config = join(dir, 'mcpkit.yaml');
    // "\u0024{MARK_VAR}" is YAML for ${MARK_VAR}: no "${" in the text, a placeholder once parsed.
    writeFileSync(
      config,
      `mcp_servers:\n  everything:\n    command: ${JSON.stringify(SERVERS.everythingProcess.command)}\n    args: ${JSON.stringify(SERVERS.everythingProcess.args)}\n    env:\n      MARK: "\\u0024{MARK_VAR}"\nretrieve:\n  roots:\n    code: .\n`,
    );
    // One environment for the daemon and its callers (its XDG folders too, which the daemon compares).
    const env = cleanEnv({ XDG_RUNTIME_DIR: run, MCPKIT_CONFIG: config, MARK_VAR: 'daemon' });
    const startedHere = await runCli(['daemon', 'start'], { env, cwd: dir });
    expect(startedHere.code, startedHere.stderr).toBe(0);
    const pid = await daemonPid(run);
    const socket = join(
      run,
      'mcpkit',
      readdirSync(join(run, 'mcpkit')).find((f) => f.endsWith('.sock'))!,
    );
    const healthy = async () => (await runCommand(['daemon', 'status', '--json'], { env, cwd: dir })).code === 0 && alive(pid);
    // The servers the daemon started, asked in this process.
    const upstreams = async () =>
      (JSON.parse((await runCommand(['daemon', 'status', '--json'], { env, cwd: dir })).stdout) as { status: { upstreams: { name: string; state: string }[] } })
        .status.upstreams;
    return { dir, env, pid, socket, healthy, upstreams };
  }

  // Three CLI starts and two of server-everything beside the daemon's: past the suite's 60 s default
  // when the whole suite shares the cores; no time is asserted.
  it.sequential(
    'a caller with another PATH, or another value of a variable the config names (escaped \\u0024{VAR} too), does the work itself',
    { timeout: 180_000 },
    async () => {
      const { dir, env, upstreams } = daemon;
      expect(await upstreams(), 'no server started before a call').toEqual([]);
      // At MCPKIT_LOG_LEVEL debug (a variable the daemon does not compare) a caller says when the
      // daemon did not run its command, and why.
      const getEnv = async (extra: Record<string, string>) => {
        const r = await runCli(['call', 'get-env', '--json'], { env: { ...env, MCPKIT_LOG_LEVEL: 'debug', ...extra }, cwd: dir });
        expect(r.code, r.stderr).toBe(0);
        const bypassed = /did not run this command, which runs here instead: these variables differ from the daemon's: (\S+) /.exec(r.stderr)?.[1];
        return { bypassed, env: JSON.parse((JSON.parse(r.stdout) as { content: { text: string }[] }).content[0]!.text) as Record<string, string> };
      };
      const otherPath = `${tempDir()}:${process.env.PATH}`;
      // Three callers of their own, each a process, at once: none waits on another's server start.
      const [same, otherValue, otherPathEnv] = await Promise.all([getEnv({}), getEnv({ MARK_VAR: 'caller' }), getEnv({ PATH: otherPath })]);
      expect(same.bypassed, 'the caller of the same environment is answered by the daemon').toBeUndefined();
      expect(same.env.MARK).toBe('daemon');
      expect(otherValue.bypassed).toBe('MARK_VAR');
      expect(otherValue.env.MARK).toBe('caller');
      expect(otherPathEnv.bypassed).toBe('PATH');
      expect(otherPathEnv.env.PATH).toBe(otherPath);
      // The one call it ran started its server: the caller of the same environment was answered there.
      expect(await upstreams()).toEqual([expect.objectContaining({ name: 'everything', state: 'ready' })]);
    },
  );

  /** Sends `chunks` on a new connection and gives what came back once the daemon closed it. */
  const exchange = (socket: string, chunks: string[]) =>
    new Promise<string>((resolve) => {
      const c = createConnection(socket);
      let got = '';
      c.setEncoding('utf8');
      c.on('data', (d) => (got += d));
      c.on('error', () => undefined);
      c.on('close', () => resolve(got));
      c.on('connect', () => {
        for (const chunk of chunks) c.write(chunk);
      });
    });

  it.sequential("a config reached through a symlink from another folder is that folder's project: its roots, not the daemon's", async () => {
    const { dir: a, env: inA } = daemon;
    const b = tempDir();
    writeFileSync(join(a, 'only-in-a.txt'), 'a\n');
    writeFileSync(join(b, 'only-in-b.txt'), 'b\n');
    symlinkSync(join(a, 'mcpkit.yaml'), join(b, 'mcpkit.yaml'));
    const [listed, own] = await Promise.all([
      runCli(['retrieve', 'ls', 'code'], { env: { ...inA, MCPKIT_CONFIG: join(b, 'mcpkit.yaml') }, cwd: b }),
      runCli(['retrieve', 'ls', 'code'], { env: inA, cwd: a }),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('only-in-b.txt');
    expect(listed.stdout).not.toContain('only-in-a.txt');
    expect(own.stdout).toContain('only-in-a.txt');
  });

  it.sequential('a line that is not JSON is answered with an error, and the daemon goes on', async () => {
    const { socket, healthy } = daemon;
    const answer = await exchange(socket, ['this is not json\n']);
    expect(answer).toMatch(/"type":"error".*not JSON/);
    expect(await exchange(socket, ['{"just":"json"}\n'])).toMatch(/not a request/);
    expect(await healthy()).toBe(true);
  });

  it.sequential('a frame without an end is cut at its limit, without the daemon growing', async () => {
    const { socket, pid, healthy } = daemon;
    const before = rssOf(pid);
    const answer = await exchange(
      socket,
      Array.from({ length: 40 }, () => 'x'.repeat(256 * 1024)),
    );
    expect(answer).toMatch(/over \d+ bytes/);
    expect(rssOf(pid) - before).toBeLessThan(64 * 1024 * 1024);
    expect(await healthy()).toBe(true);
  });

  it.sequential('a client that never reads is cut off, and the daemon does not hold its whole output', async () => {
    const { dir, env, socket, pid, healthy } = daemon;
    // About 60 MB of matches.
    writeFileSync(join(dir, 'big.txt'), `${'match '.repeat(25)}\n`.repeat(400_000));
    const request = {
      build: build(),
      cwd: dir,
      env: env as Record<string, string>,
      operation: { op: 'command', argv: ['retrieve', 'search', 'match', '--limit', '0'], colors: { out: 0, err: 0 } },
    };
    const c = createConnection(socket);
    c.on('error', () => undefined);
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    c.pause(); // reads nothing until the daemon cut it off
    c.write(`${JSON.stringify(request)}\n`);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
    // The daemon says so in its log (its stderr, beside its socket); waited for, not a fixed time.
    const log = socket.replace(/\.sock$/, '.log');
    const cutOff = await waitFor(() => readFileSync(log, 'utf8').includes('daemon: cut a client off'), 45_000, 50);
    clearInterval(sampler);
    expect(cutOff, readFileSync(log, 'utf8').slice(-2000)).toBe(true);
    // Then reads what was left for it: the daemon cut it off, so far less than the whole output, and no result.
    let received = 0;
    let last = '';
    c.on('data', (d: Buffer) => {
      received += d.length;
      last = d.toString('utf8').slice(-200);
    });
    c.resume();
    await new Promise<void>((resolve) => c.once('close', () => resolve()));
    expect(received).toBeLessThan(40 * 1024 * 1024);
    expect(last).not.toContain('"type":"result"');
    expect(peak).toBeLessThan(400 * 1024 * 1024);
    expect(await healthy()).toBe(true);
  }, 60_000);
});
