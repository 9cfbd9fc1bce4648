import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { capturedRun, runCaptured } from '../../src/cli/captured-process.js';
import { processIo } from '../../src/cli/cli-io.js';

/** A command's body as a process would run it: reads its env and folder, prints both ways, sets its exit code. */
async function command(name: string, delayMs: number): Promise<string> {
  process.stdout.write(`out ${name} ${process.env.WHO} `);
  await sleep(delayMs);
  console.log('log %s %s', name, process.cwd());
  console.error(`err ${name} ${process.stdout.isTTY === undefined ? 'pipe' : 'tty'}`);
  process.stderr.write(Buffer.from(`bytes ${name}\n`));
  process.env.SET_BY = name;
  processIo().exitCode(name === 'a' ? 3 : 0);
  return `${name} done, ${Object.keys(process.env).includes('SET_BY') ? 'own env enumerates' : 'missing'}`;
}

describe('runCaptured', () => {
  it('gives each of two runs at once its own env, folder, output and exit code', async () => {
    const [a, b] = await Promise.all([
      runCaptured({ env: { WHO: 'alice' }, cwd: '/tmp/a' }, () => command('a', 30)),
      runCaptured({ env: { WHO: 'bob' }, cwd: '/tmp/b' }, () => command('b', 5)),
    ]);
    expect(a.value).toBe('a done, own env enumerates');
    expect(a.run.out.join('')).toBe('out a alice log a /tmp/a\n');
    expect(a.run.err.join('')).toBe('err a pipe\nbytes a\n');
    expect(a.run.exitCode).toBe(3);
    expect(a.run.env.SET_BY).toBe('a');
    expect(b.run.out.join('')).toBe('out b bob log b /tmp/b\n');
    expect(b.run.err.join('')).toBe('err b pipe\nbytes b\n');
    expect(b.run.exitCode).toBe(0);
  });

  it('leaves the host as it was: its env, folder and exit code; nothing outside a run is captured', async () => {
    const cwd = process.cwd();
    const exitCode = process.exitCode;
    await runCaptured({ env: { WHO: 'x' }, cwd: '/nowhere' }, async () => {
      process.exitCode = 7; // as oclif does when an error reaches it
      process.env.LEAK = 'no';
    });
    expect(process.cwd()).toBe(cwd);
    expect(process.env.LEAK).toBeUndefined();
    expect(process.env.WHO).toBeUndefined();
    expect(process.exitCode).toBe(exitCode);
    expect(capturedRun()).toBeUndefined();
  });

  it('does not share the env object it was given: the caller keeps its own', async () => {
    const env = { WHO: 'caller' };
    await runCaptured({ env, cwd: '/tmp' }, async () => void (process.env.WHO = 'changed'));
    expect(env.WHO).toBe('caller');
  });
});
