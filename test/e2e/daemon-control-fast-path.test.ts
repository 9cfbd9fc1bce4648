import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, runCommand, tempDir, type RunResult } from '../helpers/cli.js';
import { daemonRuntimeDir } from '../helpers/daemons.js';
import { packageCopy } from '../helpers/package-copy.js';
import { alive, waitFor } from '../helpers/upstreams.js';

/**
 * `daemon start|stop|status` without oclif (src/cli/daemon-control-fast-path.ts): run from a copy
 * of the package that has no oclif entry (dist/cli/main.js removed, so a line that reached oclif
 * would fail), each line prints what the same line prints through oclif (run here, in this
 * process), byte for byte, with its exit code: the words, --json, and errors in both.
 */
describe('daemon start, stop and status without oclif', () => {
  it('answer as the oclif commands do: none running, a missing config, started, already running, status, stopped', async ({ onTestFinished }) => {
    const pkg = packageCopy();
    rmSync(join(pkg, 'dist/cli/main.js'));
    const dir = tempDir('mcpkit-test-daemon-control-');
    const file = join(dir, 'mcpkit.yaml');
    writeFileSync(file, 'mcp_servers: {}\n');
    const env = cleanEnv({ XDG_RUNTIME_DIR: daemonRuntimeDir(onTestFinished), MCPKIT_CONFIG: file });
    const fast = (args: string[]) => runCli(['daemon', ...args], { env, cwd: dir, entry: join(pkg, 'bin/run.js') });
    const oclif = (args: string[]) => runCommand(['daemon', ...args], { env, cwd: dir });
    const same = async (args: string[]): Promise<RunResult> => {
      const viaFast = await fast(args);
      expect(viaFast, `daemon ${args.join(' ')}`).toEqual(await oclif(args));
      return viaFast;
    };

    expect(await same(['status'])).toMatchObject({ code: 1, stdout: `No mcpkit daemon runs for ${file}. Start one with "mcpkit daemon start".\n` });
    expect(JSON.parse((await same(['status', '--json'])).stdout)).toMatchObject({ running: false, config: file });
    expect(await same(['stop'])).toMatchObject({ code: 0, stdout: `No mcpkit daemon runs for ${file}.\n` });
    expect(JSON.parse((await same(['stop', '--json'])).stdout)).toEqual({ config: file, stopped: false });
    expect(await same(['start', '--config', 'missing.yaml'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^Error \[CONFIG_NOT_FOUND\]: No config file at /),
    });
    expect(JSON.parse((await same(['start', '--config=missing.yaml', '--json'])).stdout).error.code).toBe('CONFIG_NOT_FOUND');

    const started = await fast(['start']);
    expect(started.code, started.stderr).toBe(0);
    const [, pidText, log] = /^mcpkit daemon started for .+ \(pid (\d+)\); log: (.+\.log)\n$/.exec(started.stdout) ?? [];
    const pid = Number(pidText);
    expect(started.stdout.startsWith(`mcpkit daemon started for ${file} (pid `)).toBe(true);
    expect(alive(pid)).toBe(true);
    // The copy's daemon: started by the line that ran from it.
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1]).toBe(join(pkg, 'dist/daemon/server/entry.js'));
    expect(JSON.parse((await same(['start', '--json'])).stdout)).toMatchObject({ config: file, pid, already: true });
    expect((await same(['start'])).stdout).toBe(`mcpkit daemon already runs for ${file} (pid ${pid}).\n`);

    // The file index of the config's folder is built a second after the start: status says so from then on.
    expect(await waitFor(() => readFileSync(log!, 'utf8').includes('file index built'), 30_000)).toBe(true);
    // What changes between two asks (uptime, the request count, memory) aside, status says the same.
    const moving = (r: RunResult) => ({ ...r, stdout: r.stdout.replace(/up \d+s, \d+ request/, 'up Ns, N request').replace(/[\d.]+ MiB/g, 'N MiB') });
    const [text, oclifText] = [await fast(['status']), await oclif(['status'])];
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^mcpkit daemon, pid ${pid}, up \\d+s`));
    expect(moving(text)).toEqual(moving(oclifText));
    const json = await fast(['status', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ running: true, config: file, status: { pid, config: file } });

    expect(await fast(['stop'])).toEqual({ code: 0, stdout: `mcpkit daemon stopped (pid ${pid}).\n`, stderr: '' });
    expect(alive(pid)).toBe(false);
    expect(await same(['stop', '--json'])).toMatchObject({ code: 0 });
  }, 120_000);
});
