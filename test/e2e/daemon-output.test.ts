import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonTestbed, EVERYTHING, seen } from '../helpers/daemon-testbed.js';
import type { Finished } from '../helpers/daemons.js';

/**
 * The commands mcpkit daemon runs print exactly what they print without it: output, errors, exit
 * codes, --json, streaming, a hook's stderr. (daemon.test.ts: the daemon's own life.)
 */

/**
 * `run` over the items `width` at a time, the results in the items' order: each next item starts
 * as soon as one ends (a slow line, a server start, holds up no turn of the others).
 */
async function inTurns<T, R>(items: readonly T[], run: (item: T) => Promise<R>, width = 3): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await run(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, runner));
  return results;
}

/**
 * A daemon of its own config (server-everything), started once, in a tree of files and scripts:
 * the tests below take their turns in it, since none needs a fresh daemon (a daemon start is about
 * a CPU-second of a suite that runs out of CPU), and each counts the requests of its own lines
 * from where the one before left off.
 */
async function treeDaemon(finished: Finished) {
  const bed = daemonTestbed(finished, EVERYTHING);
  const tree = join(bed.dir, 'tree');
  mkdirSync(join(tree, 'src'), { recursive: true });
  writeFileSync(join(tree, 'src/a.ts'), 'export const needle = 1;\n// another needle here\n');
  writeFileSync(join(tree, 'src/b.md'), '# Notes\nno match\nneedle at the end\n');
  writeFileSync(join(tree, 'sum.ts'), "const s: string = await tools.everything['get-sum']({ a: 2, b: 3 });\nconsole.log('logged');\nreturn { s };\n");
  writeFileSync(join(tree, 'fail.js'), 'await tools.everything.nope({});\n');
  const started = await bed.mcpkit(['daemon', 'start', '--json']);
  expect(started.code, started.stderr).toBe(0);
  return { ...bed, tree, log: (JSON.parse(started.stdout) as { log: string }).log };
}

/**
 * Runs each line through the daemon and without it, in the tree, and expects the same output,
 * errors and exit code from both; and one daemon request per line. Gives the request count read
 * after the lines (the status request that read it counted).
 */
async function printTheSame({ mcpkit, alone, status, tree }: Awaited<ReturnType<typeof treeDaemon>>, commands: string[][]) {
  const before = (await status()).status!.requests;
  // The first line that reaches the server pins its tools on first use (the lock file beside the
  // config): every line after it, through the daemon or not, finds them pinned.
  const first = await mcpkit(commands[0]!, { cwd: tree });
  // Each line without the daemon too (--no-daemon, in this process), meanwhile: those touch
  // neither the daemon (the request counts would see it) nor the tree.
  const coldRuns = inTurns(commands, (command) => alone(command, { cwd: tree }));
  coldRuns.catch(() => undefined); // awaited below; a failure is reported there
  const warm = [first, ...(await inTurns(commands.slice(1), (command) => mcpkit(command, { cwd: tree })))];
  // One request per line, and the status request that reads the count.
  const after = (await status()).status!.requests;
  expect(after - before, 'every command went through the daemon').toBe(commands.length + 1);
  const cold = await coldRuns;
  cold.forEach((r, i) => expect(seen(warm[i]!), commands[i]!.join(' ')).toEqual(seen(r)));
  return after;
}

// The tests share a daemon (treeDaemon), and take their turns in it (it.sequential: each counts
// its own requests; the last edits the config).
describe('through mcpkit daemon as without it', () => {
  const ends: (() => Promise<void>)[] = [];
  afterAll(() => Promise.all(ends.map((end) => end())));
  let bed: Awaited<ReturnType<typeof treeDaemon>>;
  beforeAll(async () => {
    bed = await treeDaemon((end) => void ends.push(end));
  }, 60_000);

  it.sequential('commands print the same through the daemon as without it: output, errors, exit codes, --json; MCPKIT_NO_DAEMON=1 bypasses it', async () => {
    const { mcpkit, env, status, tree } = bed;
    const before = await printTheSame(bed, [
      ['call', 'echo', 'message=hello'],
      ['call', 'echo', 'message=hello', '--json'],
      ['call', 'echo', '--args', '{"message":"from args"}'],
      ['call', 'get-sum', 'a=2', 'b=3', '--json'],
      ['call', 'no-such-tool'],
      ['call', 'no-such-tool', '--json'],
      ['call', 'echo'],
      ['tools'],
      ['tools', '--json'],
      ['view', 'tools'],
      ['server', 'test', 'everything'],
      ['server', 'test', 'nobody'],
      ['code', 'run', 'sum.ts'],
      ['code', 'run', 'sum.ts', '--json'],
      ['code', 'run', 'fail.js'],
      ['code', 'types'],
    ]);
    // A line the quick parser leaves to oclif (a short flag) is run by the daemon too, in one round
    // trip: no bypass, then a second request from the command run here.
    const counted = (await status()).status!.requests;
    // MCPKIT_NO_DAEMON=1 bypasses it, so its line runs beside the short one: a request of its own
    // would show in either count below.
    const [short, bypassed] = await Promise.all([
      mcpkit(['call', 'echo', '-a', '{"message":"short"}'], { cwd: tree }),
      mcpkit(['call', 'echo', 'message=x'], { cwd: tree, env: { ...env, MCPKIT_NO_DAEMON: '1' } }),
    ]);
    expect(short.stdout).toBe('Echo: short\n');
    expect((await status()).status!.requests - counted, 'one request for a line oclif parses').toBe(2);
    expect(bypassed.stdout).toBe('Echo: x\n');
    // The daemon heard the short line and the three status requests that read the counts.
    expect((await status()).status!.requests - before, 'MCPKIT_NO_DAEMON=1 bypasses it').toBe(4);
  }, 240_000);

  it.sequential('retrieve commands print the same through the daemon as without it: matches as they stream, a regex in a worker thread, errors, --json', async () => {
    await printTheSame(bed, [
      ['retrieve', 'search', 'needle'],
      ['retrieve', 'search', 'needle', '--json'],
      ['retrieve', 'search', 'needle', '--limit', '0'],
      ['retrieve', 'search', '(', '--regex'],
      // A backreference: the daemon searches it in a worker thread, the one-shot command in its own.
      ['retrieve', 'search', '(e)\\1', '--regex'],
      ['retrieve', 'search', '(e)\\1', '--regex', '--json'],
      ['retrieve', 'search', '(e)\\1', '--regex', '--limit', '0'],
      ['retrieve', 'cat', 'src/b.md'],
      ['retrieve', 'cat', 'src/missing.md'],
      ['retrieve', 'ls'],
      ['retrieve', 'find', '**/*.md', '--json'],
    ]);
  }, 240_000);

  // Last: it adds a hook to the config, which the daemon serves as edited.
  it.sequential("a hook's stderr reaches the terminal that made the call, through the daemon as without it; the daemon's log keeps its own lines only", async () => {
    const { dir, file, mcpkit, alone, status, log } = bed;
    writeFileSync(
      join(dir, 'hook.mjs'),
      "process.stderr.write('hook module loaded\\n');\nexport function pre_call(args, ctx) { console.error(`hook saw ${ctx.upstream_tool} ${args.message}`); }\n",
    );
    writeFileSync(file, `${readFileSync(file, 'utf8')}hooks:\n  pre_call: ./hook.mjs\n`);
    const before = (await status()).status!.requests;
    const warm = await mcpkit(['call', 'echo', 'message=first']);
    expect(warm.code, warm.stderr).toBe(0);
    expect((await status()).status!.requests - before, 'the call went through the daemon').toBe(2);
    expect(warm.stderr).toContain('hook module loaded\n');
    expect(warm.stderr).toContain('hook saw echo first\n');
    // The line without the daemon (in this process, its own server) runs while the daemon answers
    // the second: neither touches the other, and each line's stderr is its own.
    const [again, cold] = await Promise.all([mcpkit(['call', 'echo', 'message=second']), alone(['call', 'echo', 'message=third'])]);
    expect(again.stderr).toContain('hook saw echo second\n');
    expect(again.stderr, 'an unchanged module is not loaded again').not.toContain('hook module loaded');
    expect(cold.stderr).toContain('hook saw echo third\n');
    const said = readFileSync(log, 'utf8');
    expect(said).toContain('answering the commands of');
    expect(said).not.toContain('hook saw');
  }, 120_000);
});
