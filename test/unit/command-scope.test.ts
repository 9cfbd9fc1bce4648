import { setTimeout as sleep } from 'node:timers/promises';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/terminal/cli-io.js';
import { commandScope, inScope, processScope } from '../../src/cli/terminal/command-scope.js';
import { sayWaiting } from '../../src/cli/terminal/output.js';
import { printLine, reportError } from '../../src/cli/tool-runner.js';

/** An io that keeps what a command printed, and its exit code. */
function kept(): { io: CliIo; out: string[]; err: string[]; code: () => number | undefined } {
  const out: string[] = [];
  const err: string[] = [];
  let code: number | undefined;
  const plain = new Chalk({ level: 0 });
  return {
    io: { out: (t) => void out.push(t), err: (t) => void err.push(t), exitCode: (c) => void (code = c), outColor: plain, errColor: plain },
    out,
    err,
    code: () => code,
  };
}

/** A command's body: prints both ways through mcpkit's printers, reads its scope, sets its exit code. */
async function command(name: string, delayMs: number): Promise<string> {
  printLine(`out ${name} ${commandScope().env.WHO}`);
  await sleep(delayMs);
  sayWaiting(`waiting ${name} in ${commandScope().cwd}`);
  reportError({ code: 'NOT_FOUND', message: `nothing for ${name}` }, false);
  return name;
}

describe('command scopes: a host runs command lines in its own process, each with its own streams, env and folder', () => {
  it('keeps two runs at once apart, and writes nothing to the process', async () => {
    const a = kept();
    const b = kept();
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    // Only to see that nothing reaches the process's streams while the runs go on; put back at once.
    process.stdout.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    const exitCode = process.exitCode;
    try {
      await Promise.all([
        inScope({ io: a.io, env: { WHO: 'alice' }, cwd: '/tmp/a', hosted: true }, () => command('a', 30)),
        inScope({ io: b.io, env: { WHO: 'bob' }, cwd: '/tmp/b', hosted: true }, () => command('b', 5)),
      ]);
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeErr;
    }
    expect(a.out.join('')).toBe('out a alice\n');
    expect(a.err.join('')).toBe('mcpkit: waiting a in /tmp/a\nError [NOT_FOUND]: nothing for a\n');
    expect(a.code()).toBe(1);
    expect(b.out.join('')).toBe('out b bob\n');
    expect(b.err.join('')).toBe('mcpkit: waiting b in /tmp/b\nError [NOT_FOUND]: nothing for b\n');
    expect(written).toEqual([]);
    expect(process.exitCode).toBe(exitCode);
  });

  it("outside a scope, a command has the process's own", () => {
    expect(commandScope()).toMatchObject({ env: process.env, cwd: process.cwd(), hosted: false });
    expect(processScope().hosted).toBe(false);
  });
});
