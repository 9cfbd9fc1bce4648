import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { daemonTestbed, EVERYTHING } from '../helpers/daemon-testbed.js';
import { packageCopy } from '../helpers/package-copy.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * `daemon start` runs the daemon from its script form with V8's code cache (src/daemon/server/entry.ts,
 * dist/cli/daemon-server.script.cjs), from a copy of the built package so that the cache it keeps
 * beside its code is this test's own. MCPKIT_DEBUG_CODE_CACHE=1 has the loader say in the daemon's
 * log (its stderr) what V8 did with the cache. The lines the daemon runs through oclif run from the
 * script too: the copy has no oclif entry, and its split build's command files throw (a second copy of
 * every module, whose command scope was not the daemon's: each such line asked the daemon again,
 * one more request), and the daemon's errors keep their codes.
 */
describe('the daemon runs from its script form', () => {
  it("with the code cache: the first daemon of a build writes it after a client's work, the next takes it; the lines it runs through oclif see its scope (one request each) and its errors keep their codes", async ({
    onTestFinished,
  }) => {
    // The split build's modules are hard links to the build's (a copy of them is most of a package
    // copy's CPU): the commands folder is made anew below, never written through a link.
    const pkg = packageCopy({ linkModules: true });
    rmSync(join(pkg, 'dist/cli/main.js'));
    // oclif wants its commands folder there; a command file it loaded from it fails the line.
    const commands = join(pkg, 'dist/commands');
    const files = readdirSync(commands, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    rmSync(commands, { recursive: true });
    for (const file of files) {
      mkdirSync(dirname(join(commands, file)), { recursive: true });
      writeFileSync(join(commands, file), `throw new Error('the split build was loaded: ${file}');\n`);
    }
    const entry = join(pkg, 'bin/run.js');
    const { dir, mcpkit, here, status } = daemonTestbed(onTestFinished, EVERYTHING, { MCPKIT_DEBUG_CODE_CACHE: '1' });
    writeFileSync(join(dir, 'sum.js'), "return await tools.everything['get-sum']({ a: 2, b: 3 });\n");
    const cacheLine = (log: string) => /mcpkit code cache: daemon-server (taken from|absent:|rejected:|not cached:) (\S+)/.exec(readFileSync(log, 'utf8'));

    /** A daemon started from the copy; what its log said of the cache; then lines oclif runs in it, each one request. */
    const session = async () => {
      const started = await mcpkit(['daemon', 'start', '--json'], { entry });
      expect(started.code, started.stderr).toBe(0);
      const { log } = JSON.parse(started.stdout) as { log: string };
      const said = cacheLine(log);
      expect(said, readFileSync(log, 'utf8')).not.toBeNull();
      const before = (await status()).status!.requests;
      // Lines the quick parsers leave to oclif (a short flag, a hand-written command): run in the
      // daemon, in the client's scope naming the daemon's runtime. A line that did not see it would
      // ask the daemon again over its socket: a request more in the count.
      const short = await mcpkit(['call', 'echo', '-a', '{"message":"short"}'], { entry });
      expect(short, short.stderr).toMatchObject({ code: 0, stdout: 'Echo: short\n' });
      const ran = await mcpkit(['code', 'run', 'sum.js'], { entry });
      expect(ran, ran.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining('5') });
      // The daemon's runtime refuses, the command reports: its code and hint kept, not an INTERNAL error.
      const missing = await mcpkit(['code', 'run', 'sum.js', '--view', 'nope'], { entry });
      expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/^Error \[NOT_FOUND\]: No view named "nope" in the config\.\nHint: /) });
      expect((await status()).status!.requests - before, 'one request per line, and the status request that read the count').toBe(4);
      return { log, what: said![1]!.replace(/:$/, ''), file: said![2]! };
    };

    const first = await session();
    expect(first.what, 'the daemon ran from its script (no cache yet)').toBe('absent');
    expect(first.file).toMatch(new RegExp(`^${pkg}/dist/cli/daemon-server\\.[0-9a-f]{16}\\.[^/]+\\.v8cache$`));
    // Written a second after the daemon did a client's work, while it runs (a wait on the log, not a bound).
    expect(await waitFor(() => readFileSync(first.log, 'utf8').includes(`daemon-server written: ${first.file}`), 60_000)).toBe(true);
    expect((await here(['daemon', 'stop'])).code).toBe(0);
    expect(readFileSync(first.log, 'utf8').match(/daemon-server written/g)).toHaveLength(1);

    const second = await session();
    expect(second).toMatchObject({ what: 'taken from', file: first.file });
    expect((await here(['daemon', 'stop'])).code).toBe(0);
  }, 240_000);
});
