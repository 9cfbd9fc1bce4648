import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { daemonTestbed, EVERYTHING, seen } from '../helpers/daemon-testbed.js';
import { packageCopy } from '../helpers/package-copy.js';
import { alive, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * mcpkit daemon, as a user meets it: started, asked, stopped, killed, replaced, idle, following
 * its config. (daemon-output.test.ts: the commands it runs print exactly what they print without it.)
 */

describe.concurrent('mcpkit daemon', () => {
  it('starts, says what it runs (pid, upstreams, memory), stops; status exits 1 when none runs; listens on a 0600 socket in a 0700 folder, and refuses a folder others may enter', async ({
    onTestFinished,
  }) => {
    const { mcpkit, here, status, runtimeDir, file } = daemonTestbed(onTestFinished, EVERYTHING);
    // A start without a config, in folders of its own: it runs while the rest of the test does.
    const missingRun = runCli(['daemon', 'start', '--config', 'no-such.yaml'], { env: cleanEnv({ XDG_RUNTIME_DIR: tempDir() }), cwd: tempDir() });
    missingRun.catch(() => undefined); // awaited below; a failure is reported there

    const none = await here(['daemon', 'status']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('No mcpkit daemon runs for');

    const started = await mcpkit(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/mcpkit daemon started for .*mcpkit\.yaml \(pid \d+\)/);
    // A second start and a call, at once: each is a request the running daemon answers.
    const [again, hi] = await Promise.all([mcpkit(['daemon', 'start', '--json']), mcpkit(['call', 'echo', 'message=hi'])]);
    expect(JSON.parse(again.stdout)).toMatchObject({ already: true });
    expect(hi.stdout).toBe('Echo: hi\n');
    const state = await status();
    expect(state.running).toBe(true);
    expect(state.status!.upstreams).toEqual([expect.objectContaining({ name: 'everything', state: 'ready', tools: expect.any(Number) })]);
    expect(state.status!.memory.rss_bytes).toBeGreaterThan(0);
    // It runs its own entry, not the CLI's: oclif and its command table were a tenth of its CPU.
    expect(readFileSync(`/proc/${state.status!.pid}/cmdline`, 'utf8').split('\0').slice(1, -1)).toEqual([
      join(ROOT, 'dist/daemon/server/entry.js'),
      '--config',
      file,
    ]);
    const text = await here(['daemon', 'status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pid \d+, up \d+s/);
    expect(text.stdout).toMatch(/everything\s+ready/);
    expect(statSync(state.socket).isSocket()).toBe(true);
    expect(statSync(state.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(runtimeDir, 'mcpkit')).mode & 0o777).toBe(0o700);

    const stopped = await here(['daemon', 'stop']);
    expect(stopped.stdout).toBe(`mcpkit daemon stopped (pid ${state.status!.pid}).\n`);
    expect(alive(state.status!.pid)).toBe(false);
    expect(existsSync(state.socket)).toBe(false);
    expect((await here(['daemon', 'stop'])).stdout).toContain('No mcpkit daemon runs');

    chmodSync(join(runtimeDir, 'mcpkit'), 0o755);
    const refused = await mcpkit(['daemon', 'start']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Error \[FILE_ACCESS\]: The daemon's folder .* may be entered by other users \(mode 755\)/);

    const missing = await missingRun;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Error \[CONFIG_NOT_FOUND\]: No config file at .*no-such\.yaml/);
  }, 90_000);

  it('a killed daemon: the next command does the work itself and removes the socket', async ({ onTestFinished }) => {
    const { mcpkit, here, status } = daemonTestbed(onTestFinished, EVERYTHING);
    const started = await mcpkit(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    const { socket, status: s } = await status();
    expect(s, 'daemon status --json after a start').toBeDefined();
    process.kill(s!.pid, 'SIGKILL');
    await waitFor(() => !alive(s!.pid), 5_000);
    expect(existsSync(socket)).toBe(true);
    const r = await mcpkit(['call', 'echo', 'message=after']);
    expect(r).toMatchObject({ code: 0, stdout: 'Echo: after\n' });
    expect(existsSync(socket)).toBe(false);
    expect((await here(['daemon', 'status'])).code).toBe(1);
    const again = await mcpkit(['daemon', 'start']);
    expect(again.code, again.stderr).toBe(0);
    // Six processes one after another, two of them daemon starts: 60 s ran out at load 20.
  }, 120_000);

  it('a daemon of another build is never used: commands do the work themselves; start (and daemon: auto) replace it', async ({ onTestFinished }) => {
    const { mcpkit, here, status, file } = daemonTestbed(onTestFinished, EVERYTHING);
    // Another build of mcpkit: the same code with another build identity. Its split build's modules
    // are hard links to the build's (copying them was most of the copy's CPU): what this test writes
    // (build.json, the manifest) and what its starts write (code caches, in dist/cli) are copies.
    const other = packageCopy({ linkModules: true });
    cpSync(join(ROOT, 'oclif.manifest.json'), join(other, 'oclif.manifest.json'));
    writeFileSync(join(other, 'dist/build.json'), '{"id":"another-build"}\n');
    expect((await mcpkit(['daemon', 'start'], { entry: join(other, 'bin/run.js') })).code).toBe(0);
    expect((await here(['daemon', 'status'])).stdout).toContain('another build than this mcpkit');
    // Read after the text line: its count is where the two lines below start from, with no status request more to read it.
    const old = await status();
    expect(old).toMatchObject({ running: true, other_build: true });

    const before = old.status!.requests;
    const [mine, listed] = await Promise.all([mcpkit(['call', 'echo', 'message=mine']), mcpkit(['retrieve', 'ls', '--json'])]);
    expect(mine).toMatchObject({ code: 0, stdout: 'Echo: mine\n' });
    expect(listed.code).toBe(0);
    // Asked (and it answered bypass), but it did no work: no upstream was started in it.
    const after = await status();
    expect(after.status!.upstreams).toEqual([]);
    expect(after.status!.requests - before).toBe(3);

    // daemon: auto replaces it with one of this build, in the background.
    writeFileSync(file, `daemon: auto\n${EVERYTHING}`);
    expect((await mcpkit(['call', 'echo', 'message=again'])).stdout).toBe('Echo: again\n');
    // One status request a poll, read once: both conditions of the same answer.
    const replaced = async () => {
      const now = await status();
      return now.other_build !== true && now.running;
    };
    expect(await waitFor(replaced, 20_000, 200)).toBe(true);
    expect(alive(old.status!.pid)).toBe(false);
  }, 90_000);

  it('exits after daemon.idle_minutes without a request, and removes its socket', async ({ onTestFinished }) => {
    const { mcpkit } = daemonTestbed(onTestFinished, `daemon:\n  idle_minutes: 0.05\n${EVERYTHING}`);
    // What start says is all this needs: asking for the status would be a request, and reset the clock.
    const start = await mcpkit(['daemon', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    const started = JSON.parse(start.stdout) as { pid: number; log: string };
    const socket = started.log.replace(/\.log$/, '.sock');
    expect(await waitFor(() => !alive(started.pid), 20_000, 100)).toBe(true);
    expect(existsSync(socket)).toBe(false);
    expect(readFileSync(started.log, 'utf8')).toContain('stopping: idle for 0.05 minute(s) (daemon.idle_minutes)');
  }, 60_000);

  it('daemon: auto starts it with the first command, which does its own work meanwhile', async ({ onTestFinished }) => {
    const { mcpkit, status } = daemonTestbed(onTestFinished, `daemon: auto\n${EVERYTHING}`);
    expect(await mcpkit(['call', 'echo', 'message=first'])).toMatchObject({ code: 0, stdout: 'Echo: first\n' });
    expect(await waitFor(async () => (await status()).running, 20_000, 200)).toBe(true);
    const before = (await status()).status!.requests;
    expect((await mcpkit(['call', 'echo', 'message=second'])).stdout).toBe('Echo: second\n');
    expect((await status()).status!.requests - before).toBe(2);
  }, 60_000);

  // The tests below share two daemons, started once, where what they check does not need a fresh
  // one: each daemon start is about a CPU-second of a suite that runs out of CPU. The two are of two
  // projects (configs) and one user (a runtime folder): after the tests of each, which run in order
  // (the last edits the config, the first reads the start), and beside the tests above, `daemon
  // list` and `daemon stop --all` meet them both.
  describe.sequential('two daemons of one user', () => {
    const ends: (() => Promise<void>)[] = [];
    afterAll(() => Promise.all(ends.map((end) => end())));
    /** A daemon of two roots and no stdio server. */
    let roots: ReturnType<typeof daemonTestbed>;
    /** A daemon of server-everything. */
    let everything: ReturnType<typeof daemonTestbed>;
    let tree: string;
    let started: { log: string };
    beforeAll(async () => {
      tree = tempDir('mcpkit-test-warm-tree-');
      for (let i = 0; i < 200; i++) writeFileSync(join(tree, `f${i}.txt`), `line ${i}\nneedle ${i}.\n`);
      roots = daemonTestbed((end) => void ends.push(end), `retrieve:\n  roots:\n    tree: ${JSON.stringify(tree)}\n    docs: ./docs\n`);
      mkdirSync(join(roots.dir, 'docs'), { recursive: true });
      writeFileSync(join(roots.dir, 'docs', 'a.md'), 'needle\n');
      everything = daemonTestbed((end) => void ends.push(end), EVERYTHING, { XDG_RUNTIME_DIR: roots.runtimeDir });
      expect((await roots.here(['daemon', 'list'])).stdout).toBe('No mcpkit daemon runs.\n');
      // Two configs' daemons start at once, as two projects' first commands may start theirs.
      const [start, other] = await Promise.all([roots.mcpkit(['daemon', 'start', '--json']), everything.mcpkit(['daemon', 'start'])]);
      expect(start.code, start.stderr).toBe(0);
      expect(other.code, other.stderr).toBe(0);
      started = JSON.parse(start.stdout) as { log: string };
    }, 120_000);

    describe.concurrent('a daemon of two roots and no stdio server', () => {
      it.sequential('builds the file index of its roots as it starts, before any command searches: status shows it, the log says when it is done', async () => {
        const { mcpkit, status } = roots;
        expect(await waitFor(() => readFileSync(started.log, 'utf8').includes('file index built'), 20_000), readFileSync(started.log, 'utf8')).toBe(true);
        expect(readFileSync(started.log, 'utf8')).toMatch(/file index built in \d+ ms: .*\(200 files\)/);
        const cache = (await status()).status as unknown as { cache: { roots: { root: string; files: number; mode: string }[]; pending_files: number } };
        expect(cache.cache.roots).toEqual(expect.arrayContaining([expect.objectContaining({ root: tree, files: 200 })]));
        expect(cache.cache.pending_files).toBe(0);
        // What a person asks for first is answered from that index, as any later search is.
        const found = await mcpkit(['retrieve', 'search', 'needle 17.', '--repo', 'tree', '--json']);
        expect(JSON.parse(found.stdout).result.matches).toEqual([expect.objectContaining({ path: 'tree/f17.txt', line: 2 })]);
      }, 60_000);

      it.sequential('compares only what the config depends on: TZ or PATH serve a config that starts no server', async () => {
        // No stdio server: the time zone and the PATH change nothing it answers.
        const before = (await roots.status()).status!.requests;
        const found = await roots.mcpkit(['retrieve', 'search', 'needle', '--repo', 'docs'], {
          env: { ...roots.env, TZ: 'Pacific/Kiritimati', PATH: `/nowhere:${roots.env.PATH}` },
        });
        expect(found.stdout).toContain('needle');
        expect((await roots.status()).status!.requests - before, 'served by the daemon').toBe(2);
      }, 120_000);
    });

    describe.concurrent('a daemon of server-everything', () => {
      it.sequential('compares only what the config depends on: a stdio server starts with PATH, so another PATH runs here; a skipped command says why', async () => {
        // Two callers at once, each doing the work itself: one with a log level, one without.
        const otherPath = { ...everything.env, PATH: `/nowhere:${everything.env.PATH}` };
        const [skipped, silent] = await Promise.all([
          everything.mcpkit(['call', 'echo', 'message=hi'], { env: { ...otherPath, MCPKIT_LOG_LEVEL: 'debug' } }),
          everything.mcpkit(['call', 'echo', 'message=hi'], { env: otherPath }),
        ]);
        expect(skipped.stdout).toBe('Echo: hi\n');
        expect(skipped.stderr).toMatch(
          /mcpkit: the daemon of this config did not run this command, which runs here instead: these variables differ from the daemon's: PATH/,
        );
        expect(silent.stderr, 'a script without a log level hears nothing').not.toContain('did not run');
      }, 120_000);

      // Last: it adds a server to the config, then breaks the file.
      it.sequential('serves the config as edited: a server added by the CLI is there for the next command; a broken file is reported as without a daemon', async () => {
        const { mcpkit, here, alone, status, file } = everything;
        expect((await mcpkit(['call', 'echo', 'message=one'])).code).toBe(0);
        const added = await here(['server', 'add', 'memory', '--', SERVERS.memory.command, ...SERVERS.memory.args]);
        expect(added.code, added.stderr).toBe(0);
        const tools = await mcpkit(['tools', '--json']);
        expect((JSON.parse(tools.stdout) as { name: string }[]).map((t) => t.name)).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
        expect((await status()).status!.upstreams.map((u) => u.name).sort()).toEqual(['everything', 'memory']);

        writeFileSync(file, `${readFileSync(file, 'utf8')}\nnot: [valid\n`);
        const [broken, cold] = await Promise.all([mcpkit(['call', 'everything__echo', 'message=x']), alone(['call', 'everything__echo', 'message=x'])]);
        expect(broken.code).not.toBe(0);
        expect(seen(broken)).toEqual(seen(cold));
      }, 90_000);
    });

    // After the tests of both: it stops them.
    it('daemon list shows one per config; daemon stop --all stops them all', async () => {
      const { here } = roots;
      const listed = JSON.parse((await here(['daemon', 'list', '--json'])).stdout) as { daemons: { config: string; status: { pid: number } }[] };
      expect(listed.daemons.map((d) => d.config)).toEqual([roots.file, everything.file].sort());
      const stopped = await here(['daemon', 'stop', '--all', '--json']);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect((JSON.parse(stopped.stdout) as { stopped: { pid: number }[] }).stopped.map((s) => s.pid).sort()).toEqual(
        listed.daemons.map((d) => d.status.pid).sort(),
      );
      for (const d of listed.daemons) expect(alive(d.status.pid)).toBe(false);
      expect((await here(['daemon', 'ls'])).stdout).toBe('No mcpkit daemon runs.\n');
    }, 60_000);
  });
});
