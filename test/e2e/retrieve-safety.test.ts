import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, outputOf, spawnTracked, stopChild, tempDir, runCommand } from '../helpers/cli.js';
import { waitFor } from '../helpers/upstreams.js';

/** No file outside a root, whatever races the check; only regular files are opened. */
async function serveRoot(root: string): Promise<Client> {
  const client = new Client({ name: 'safety', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve'],
      env: cleanEnv({ CODE_ROOT: root }) as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  return client;
}

/**
 * One serve for the tests that only ask it something, each of a root of its own (named in every
 * call, so no answer draws on another test's files): a serve's start is most of what such a test
 * costs. The roots are made whole before serve starts. The race, the patterns' budgets and the
 * stack overflow keep serves of their own (a fresh config, a swapper's flood of changes, a
 * matcher that holds serve: nothing another test should wait behind or share).
 */
let shared: Promise<{ client: Client; base: string; root: (name: SharedRoot) => string }> | undefined;
// Not tempDir(): the deep root is removed with rm -rf (see below), by afterAll, made or not.
let sharedBase: string | undefined;
type SharedRoot = 'fifo' | 'deep' | 'names' | 'listing';
function sharedServe() {
  return (shared ??= (async () => {
    const base = (sharedBase = mkdtempSync(join(tmpdir(), 'mcpkit-safety-')));
    const root = (name: SharedRoot) => join(base, name);
    for (const name of ['fifo', 'deep', 'names', 'listing'] as const) mkdirSync(root(name));
    // A FIFO beside a regular file.
    execFileSync('mkfifo', [join(root('fifo'), 'pipe.txt')]);
    writeFileSync(join(root('fifo'), 'note.txt'), 'needle here\n');
    // A path longer than PATH_MAX, made with relative steps (chdir), as no call takes the whole
    // path; removed with rm -rf, which walks down the same way (fs.rmSync gives up with ENAMETOOLONG).
    const deep = `const fs = require('fs'); fs.writeFileSync('top.txt', 'needle top\\n');
      for (let i = 0; i < 500; i++) { fs.mkdirSync('folder_' + i); process.chdir('folder_' + i); }
      fs.writeFileSync('deep.txt', 'needle deep\\n');`;
    execFileSync(process.execPath, ['-e', deep], { cwd: root('deep') });
    // A name with control characters, one that is not UTF-8, and a plain one.
    mkdirSync(join(root('names'), 'ok'));
    writeFileSync(join(root('names'), 'ok', 'evil\nname.txt:1:forged \u001b[31mred'), 'needle\n');
    writeFileSync(Buffer.concat([Buffer.from(join(root('names'), 'ok', 'bad')), Buffer.from([0xff]), Buffer.from('name.txt')]), 'needle\n');
    writeFileSync(join(root('names'), 'ok', 'plain.txt'), 'needle\n');
    // A folder of 1200 files.
    mkdirSync(join(root('listing'), 'many'));
    for (let i = 0; i < 1200; i++) writeFileSync(join(root('listing'), 'many', `f${String(i).padStart(4, '0')}.txt`), '');
    const config = join(base, 'mcpkit.yaml');
    writeFileSync(config, 'retrieve:\n  roots: { fifo: ./fifo, deep: ./deep, names: ./names, listing: ./listing }\n');
    const client = new Client({ name: 'safety', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--config', config],
        env: cleanEnv() as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    return { client, base, root };
  })());
}
afterAll(async () => {
  // A serve that did not start, or does not close, leaves no folder behind.
  try {
    if (shared) await (await shared).client.close();
  } catch {
    /* its setup failed: the test that asked for it says so */
  } finally {
    if (sharedBase) execFileSync('rm', ['-rf', sharedBase]);
  }
});

const textOf = (r: unknown) => JSON.stringify((r as CallToolResult).structuredContent ?? (r as CallToolResult).content);

describe.concurrent('retrieve against a racing attacker', () => {
  it('600 calls while a file and a folder are swapped for symlinks to outside: nothing outside is read or listed', async () => {
    const base = tempDir();
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(root);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'SECRET\n');
    writeFileSync(join(outside, 'd-file.txt'), 'SECRET\n');
    writeFileSync(join(outside, 'only-outside.txt'), 'SECRET\n');
    // serve starts first: the swapper spins a core for as long as it runs, so it runs only while
    // the calls do (it makes the files it swaps before it says it is ready).
    const client = await serveRoot(root);
    const swapper = spawnTracked(process.execPath, [join(ROOT, 'test/fixtures/swapper.mjs'), root, outside], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => swapper.stdout.once('data', () => resolve()));
    const leaks: string[] = [];
    const outcomes = new Map<string, number>();
    try {
      // A round of the six calls at once, 100 rounds: the same 600 calls against the same swaps, in
      // less of the time the swapper spends a core on its loop.
      const calls = [
        ['open_file', { path: 'target.txt' }],
        ['get_snippet', { path: 'd/d-file.txt', start: 1, end: 1 }],
        ['list_dir', { path: 'd' }],
        ['open_file', { path: 'd/d-file.txt' }],
        ['search', { query: 'SECRET' }],
        ['find_files', { glob: 'd/*' }],
      ] as const;
      for (let round = 0; round < 100; round++) {
        const answers = await Promise.all(calls.map(([tool, args]) => client.callTool({ name: tool, arguments: args }) as Promise<CallToolResult>));
        answers.forEach((r, i) => {
          const tool = calls[i]![0];
          const text = textOf(r);
          // search's query itself says SECRET: what must not appear is a match of it.
          const leaked =
            tool === 'search'
              ? ((r.structuredContent as { result?: { matches: unknown[] } }).result?.matches.length ?? 0) > 0
              : /SECRET|only-outside|secret\.txt/.test(text);
          if (leaked) leaks.push(`${tool}: ${text.slice(0, 200)}`);
          const code = r.isError ? (r.structuredContent as { error: { code: string } }).error.code : 'ok';
          outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
        });
      }
    } finally {
      await stopChild(swapper);
      await client.close();
    }
    expect(leaks).toEqual([]);
    // The race was real: some calls were refused or found nothing, and some went through.
    expect(outcomes.get('ok')).toBeGreaterThan(0);
    expect([...outcomes.keys()].filter((c) => !['ok', 'PATH_OUT_OF_ROOT', 'FILE_NOT_FOUND', 'DIR_NOT_FOUND'].includes(c))).toEqual([]);
  }, 120_000);
});

describe.concurrent('special files', () => {
  it('a FIFO is refused by name at once (FILE_NOT_REGULAR), skipped by search, and serve keeps answering', async () => {
    const { client } = await sharedServe();
    const started = Date.now();
    const r = (await client.callTool({ name: 'open_file', arguments: { path: 'fifo/pipe.txt' } })) as CallToolResult;
    expect((r.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'FILE_NOT_REGULAR',
      message: 'fifo/pipe.txt is a FIFO (named pipe), not a regular file.',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const search = (await client.callTool({ name: 'search', arguments: { query: 'needle', repo: 'fifo' } })) as CallToolResult;
    expect(search.isError).toBeFalsy();
    expect(textOf(search)).toContain('note.txt');
    const list = (await client.callTool({ name: 'list_dir', arguments: { path: 'fifo' } })) as CallToolResult;
    expect(list.isError).toBeFalsy();
  });
});

describe.concurrent('paths longer than PATH_MAX', () => {
  it('are left out and counted (skipped.path_too_long) by search, find_files and smart_search, over MCP and in the terminal', async () => {
    const { client, base, root: rootOf } = await sharedServe();
    const root = rootOf('deep');
    for (const [tool, args] of [
      ['search', { query: 'needle', repo: 'deep' }],
      ['find_files', { glob: '**/*.txt', repo: 'deep' }],
      ['smart_search', { query: 'needle', repo: 'deep' }],
    ] as const) {
      const r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      expect(r.isError, `${tool}: ${textOf(r)}`).toBeFalsy();
      const result = (r.structuredContent as { result: { skipped: { path_too_long: number } } }).result;
      expect(result.skipped.path_too_long, tool).toBe(1);
      expect(textOf(r)).toContain('top.txt');
      expect(textOf(r)).not.toContain(base); // no absolute path leaks, of this root or any
    }
    const env = cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' });
    const found = await runCommand(['retrieve', 'find', '**/*.txt'], { env });
    expect(found.code).toBe(0);
    expect(found.stdout.trim()).toBe('code/top.txt'); // never a path that cat could not open
    expect(found.stderr).toContain('1 entry was left out: the path is longer than the system takes');
  }, 60_000);
});

describe.concurrent('names and folders that cannot be shown or read as they are', () => {
  it('control characters in names are escaped in the terminal; names that are not UTF-8 are left out and counted', async () => {
    const { client, root: rootOf } = await sharedServe();
    const env = cleanEnv({ CODE_ROOT: rootOf('names'), MCPKIT_NO_DAEMON: '1' });
    for (const args of [
      ['retrieve', 'ls', 'code/ok'],
      ['retrieve', 'find', '**/*'],
      ['retrieve', 'search', 'needle'],
    ]) {
      const r = await runCommand(args, { env });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).toContain('evil\\nname.txt:1:forged \\u001b[31mred');
      expect(r.stdout).not.toContain('\uFFFD'); // the undecodable name is not shown as a name that opens nothing
      expect(r.stderr).toContain('1 entry was left out: the name is not valid UTF-8.');
      expect(r.stdout).toContain('plain.txt');
    }
    const listed = (await client.callTool({ name: 'list_dir', arguments: { path: 'names/ok' } })) as CallToolResult;
    const result = (listed.structuredContent as { result: { entries: { name: string }[]; skipped: { name_not_utf8: number } } }).result;
    expect(result.entries.map((e) => e.name)).toEqual(['evil\nname.txt:1:forged \u001b[31mred', 'plain.txt']); // JSON carries them whole
    expect(result.skipped.name_not_utf8).toBe(1);
    const found = (await client.callTool({ name: 'find_files', arguments: { glob: '**/*.txt', repo: 'names' } })) as CallToolResult;
    expect((found.structuredContent as { result: { skipped: { name_not_utf8: number } } }).result.skipped.name_not_utf8).toBe(1);
  }, 60_000);

  it('list_dir returns at most limit entries (default 1000), with truncated and total_entries', async () => {
    const { client } = await sharedServe();
    const call = async (args: Record<string, unknown>) => {
      const r = (await client.callTool({ name: 'list_dir', arguments: { path: 'listing/many', ...args } })) as CallToolResult;
      return r.structuredContent as { result: { entries: { name: string }[]; total_entries: number }; meta: { truncated: boolean } };
    };
    const first = await call({});
    expect(first.result.entries).toHaveLength(1000);
    expect(first.result.entries[0]!.name).toBe('f0000.txt');
    expect(first.result).toMatchObject({ total_entries: 1200 });
    expect(first.meta.truncated).toBe(true);
    const all = await call({ limit: 5000 });
    expect(all.result.entries).toHaveLength(1200);
    expect(all.meta.truncated).toBe(false);
    const bad = (await client.callTool({ name: 'list_dir', arguments: { path: 'listing/many', limit: 0 } })) as CallToolResult;
    expect((bad.structuredContent as { error: { code: string } }).error.code).toBe('LIMIT_INVALID');
  }, 60_000);

  it('a file or folder this user may not read is FILE_ACCESS, named inside its root, not INTERNAL with the absolute path', async () => {
    // root reads everything: as root, mcpkit runs as nobody (setpriv), in a folder of the system's
    // /tmp that nobody may enter (the suite's own TMPDIR is root's alone).
    const asRoot = process.getuid?.() === 0;
    const base = asRoot ? mkdtempSync('/tmp/mcpkit-access-') : tempDir();
    try {
      const root = join(base, 'root');
      const home = join(base, 'home');
      mkdirSync(root);
      mkdirSync(home);
      writeFileSync(join(root, 'unreadable.txt'), 'secret\n');
      mkdirSync(join(root, 'locked'));
      chmodSync(join(root, 'unreadable.txt'), 0o000);
      chmodSync(join(root, 'locked'), 0o000);
      if (asRoot) {
        chmodSync(base, 0o755);
        chmodSync(root, 0o755);
        chmodSync(home, 0o777);
      }
      const env = cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1', HOME: home, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home });
      const run = (args: string[]) =>
        asRoot
          ? outputOf('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args, '--json'], { cwd: home, env })
          : outputOf(process.execPath, [BIN, ...args, '--json'], { cwd: home, env });
      for (const [args, path] of [
        [['retrieve', 'cat', 'code/unreadable.txt'], 'code/unreadable.txt'],
        [['retrieve', 'ls', 'code/locked'], 'code/locked'],
      ] as const) {
        const printed = await run([...args]);
        const out = JSON.parse(printed) as { error: { code: string; message: string } };
        expect(out.error.code, `${args.join(' ')}: ${printed}`).toBe('FILE_ACCESS');
        expect(out.error.message).toBe(`${path} cannot be read: permission denied.`);
        expect(printed).not.toContain(root);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.concurrent('patterns from a caller cannot stall serve', () => {
  it('catastrophic regular expressions and globs run in linear time; what cannot stops at retrieve.timeout_ms with TIMEOUT, and serve answers right after', async () => {
    const dir = tempDir();
    const root = join(dir, 'root');
    mkdirSync(root);
    writeFileSync(join(root, 'as.txt'), `${'a'.repeat(28)}!\n${'a'.repeat(5000)}!\n`);
    writeFileSync(join(root, 'a'.repeat(150)), 'x\n');
    writeFileSync(join(dir, 'mcpkit.yaml'), 'retrieve:\n  roots: { code: ./root }\n  timeout_ms: 1500\n');
    const client = new Client({ name: 'safety', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--config', join(dir, 'mcpkit.yaml')],
        env: cleanEnv() as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      // The first search walks the root and loads the search code: timed apart from the pattern's
      // own cost (on a loaded CI machine that start alone came near the second allowed below).
      await client.callTool({ name: 'search', arguments: { query: 'warm up' } });
      let started = Date.now();
      const regex = (await client.callTool({ name: 'search', arguments: { query: '(a+)+$', regex: true } })) as CallToolResult;
      expect(regex.isError).toBeFalsy();
      expect((regex.structuredContent as { result: { matches: unknown[] } }).result.matches).toEqual([]);
      expect(Date.now() - started).toBeLessThan(3000); // backtracking would take minutes on the first line alone
      const nested = (await client.callTool({ name: 'search', arguments: { query: '(a|aa)+!', regex: true } })) as CallToolResult;
      expect((nested.structuredContent as { result: { matches: unknown[] } }).result.matches).toHaveLength(2);

      // A glob that backtracks in picomatch's own expression: run without its lookaheads, linear.
      started = Date.now();
      const glob = (await client.callTool({ name: 'find_files', arguments: { glob: '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b' } })) as CallToolResult;
      expect(glob.isError).toBeFalsy();
      expect(Date.now() - started).toBeLessThan(3000); // as above: minutes if it backtracked

      // A backreference needs backtracking (no linear engine runs it): the budget stops it, and
      // serve answers the next request right after.
      started = Date.now();
      const backref = client.callTool({ name: 'search', arguments: { query: '(a|aa)+\\1b', regex: true } });
      const other = client.callTool({ name: 'list_dir', arguments: { path: 'code' } });
      const [stopped, answered] = (await Promise.all([backref, other])) as CallToolResult[];
      expect((stopped!.structuredContent as { error: { code: string } }).error.code).toBe('TIMEOUT');
      expect(answered!.isError).toBeFalsy();
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('expressions and globs only a backtracking engine runs are matched off the main thread: three at once hold no other caller, stop at the budget, and leave nothing running', async () => {
    const dir = tempDir();
    const root = join(dir, 'root');
    mkdirSync(root);
    writeFileSync(join(root, 'as.txt'), `${'a'.repeat(2 * 1024 * 1024)}\n`);
    writeFileSync(join(root, 'words.txt'), 'a book\nkeeper of bees\nnothing here\n');
    // The patterns that end are checked first, under a budget a loaded machine cannot run out of:
    // under a load of 20 on 2 cores, `(\w)\1` on the 2 MB line took serve 2.3-3.7 s (a worker's
    // start and the read), and at a budget of 3 s answered TIMEOUT, as documented, instead of matches.
    // The budget of the patterns that never end comes after, through a config reload.
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(config, 'retrieve:\n  roots: { code: ./root }\n  timeout_ms: 60000\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--config', config],
      env: cleanEnv() as Record<string, string>,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'safety', version: '1' });
    await client.connect(transport);
    const cpuSeconds = () => {
      const fields = readFileSync(`/proc/${transport.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks
    };
    const listed = (r: unknown) => (r as { result: { files: { path: string }[] } }).result.files.map((f) => f.path);
    try {
      // A backreference that ends finds what the one-shot command finds (same order, same lines).
      const found = (await client.callTool({ name: 'search', arguments: { query: '(\\w)\\1', regex: true } })) as CallToolResult;
      const terminal = await runCommand(['retrieve', 'search', '(\\w)\\1', '--regex', '--json', '--config', config], {
        env: cleanEnv({ MCPKIT_NO_DAEMON: '1' }),
      });
      const paths = (r: { result: { matches: { path: string; line: number }[] } }) => r.result.matches.map((m) => `${m.path}:${m.line}`);
      expect(found.structuredContent, 'the search that ends').toHaveProperty('result');
      expect(paths(found.structuredContent as never)).toEqual(['code/as.txt:1', 'code/words.txt:1', 'code/words.txt:2']);
      expect(paths(JSON.parse(terminal.stdout))).toEqual(paths(found.structuredContent as never));

      // An extglob that ends lists what the one-shot command lists.
      const notText = (await client.callTool({ name: 'find_files', arguments: { glob: '!(*.txt)' } })) as CallToolResult;
      expect(listed(notText.structuredContent)).toEqual([]);
      writeFileSync(join(root, 'c.md'), 'x\n');
      // Until the index's watcher has seen the new file: it is the only answer that is not [].
      let md: unknown;
      await waitFor(
        async () => {
          md = ((await client.callTool({ name: 'find_files', arguments: { glob: '!(*.txt)' } })) as CallToolResult).structuredContent;
          return listed(md).length > 0;
        },
        15_000,
        100,
      );
      const mdTerminal = await runCommand(['retrieve', 'find', '!(*.txt)', '--json', '--config', config], {
        env: cleanEnv({ MCPKIT_NO_DAEMON: '1' }),
      });
      expect(listed(md)).toEqual(['code/c.md']);
      expect(listed(JSON.parse(mdTerminal.stdout))).toEqual(['code/c.md']);

      // Now the budget of the patterns that never end, and a second root whose listing says serve
      // reloaded the config. Each of them spins a core until its budget (two workers on 2 cores), so
      // the budget is what this test costs: 1.5 s, 5x the 300 ms each check below waits before it
      // asks serve something else while they run (3 s cost twice the CPU for the same checks).
      const budgetMs = 1500;
      mkdirSync(join(dir, 'reloaded'));
      writeFileSync(config, `retrieve:\n  roots: { code: ./root, reloaded: ./reloaded }\n  timeout_ms: ${budgetMs}\n`);
      const reloaded = await waitFor(
        async () => !((await client.callTool({ name: 'list_dir', arguments: { path: 'reloaded' } })) as CallToolResult).isError,
        30_000,
        100,
      );
      expect(reloaded, 'serve reloaded the config').toBe(true);

      // A 40-character name for the globs below, written now: the index's watcher sees it meanwhile.
      writeFileSync(join(root, `${'a'.repeat(40)}.txt`), 'x\n');
      // (a*)*\1b on a 2 MB line backtracks for minutes: three callers at once.
      const catastrophic = [1, 2, 3].map(() => client.callTool({ name: 'search', arguments: { query: '(a*)*\\1b', regex: true } }) as Promise<CallToolResult>);
      let oneStopped = false;
      const endedAt: number[] = [];
      for (const call of catastrophic)
        void call.then(() => {
          oneStopped = true;
          endedAt.push(Date.now());
        });
      await new Promise((r) => setTimeout(r, 300));
      const other = (await client.callTool({ name: 'search', arguments: { query: 'keeper' } })) as CallToolResult;
      // Answered while the expressions still run (until their budget): a main thread they held
      // would answer only after they stopped. An order, not a time, so a loaded machine cannot decide it.
      expect(oneStopped, 'another caller waited for the expressions').toBe(false);
      expect(textOf(other)).toContain('keeper of bees');
      const stopped = await Promise.all(catastrophic);
      for (const r of stopped) expect((r.structuredContent as { error: { code: string } }).error.code).toBe('TIMEOUT');
      // Together, not one after the other: one after the other, the last would end two budgets
      // after the first; together they end within a budget of each other, however late a loaded
      // machine starts them all (a fixed bound from the start failed once at a load of 15).
      await new Promise((r) => setImmediate(r));
      expect(endedAt).toHaveLength(3);
      expect(Math.max(...endedAt) - Math.min(...endedAt)).toBeLessThan(budgetMs);
      // So is a glob only a backtracking engine matches (an extglob): minutes on a 40-character name.
      const extglob = { glob: '!(*a*a*a*a*a*a*a*a*a*a*a*a*b)' };
      const globbing = client.callTool({ name: 'find_files', arguments: extglob }) as Promise<CallToolResult>;
      // search's globs are rg's: a leading "!" leaves out, so its negation comes after a letter.
      const searching = client.callTool({ name: 'search', arguments: { query: 'x', glob: 'a!(*a*a*a*a*a*a*a*a*a*a*a*a*b)' } }) as Promise<CallToolResult>;
      let globStopped = false;
      for (const call of [globbing, searching]) void call.then(() => (globStopped = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(textOf(await client.callTool({ name: 'list_dir', arguments: { path: 'code' } }))).toContain('words.txt');
      // Answered while the globs still run (until their budget), as for the expressions above.
      expect(globStopped, 'another caller waited for the glob').toBe(false);
      for (const r of await Promise.all([globbing, searching]))
        expect((r.structuredContent as { error?: { code: string } }).error?.code, JSON.stringify(r)).toBe('TIMEOUT');
      // A cancelled call stops its worker too.
      const abort = new AbortController();
      const cancelled = client.callTool({ name: 'search', arguments: { query: '(a*)*\\1b', regex: true } }, { signal: abort.signal });
      await new Promise((r) => setTimeout(r, 300));
      abort.abort();
      await expect(cancelled).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 200));

      // The workers were stopped: serve is idle again, not still backtracking.
      const cpu = cpuSeconds();
      await new Promise((r) => setTimeout(r, 1000));
      expect(cpuSeconds() - cpu).toBeLessThan(0.3);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('a regular expression that overflows the stack on a long line is QUERY_TOO_COMPLEX, not INTERNAL, and serve goes on', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'long.txt'), `${'a'.repeat(16 * 1024 * 1024)}\n`);
    writeFileSync(join(root, 'short.txt'), 'aac\n');
    const r = await runCommand(['retrieve', 'search', '(a|aa)*c', '--regex', '--json'], { env: cleanEnv({ CODE_ROOT: root, MCPKIT_NO_DAEMON: '1' }) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('QUERY_TOO_COMPLEX');
    const client = await serveRoot(root);
    try {
      const deep = (await client.callTool({ name: 'search', arguments: { query: '(a|aa)*c', regex: true } })) as CallToolResult;
      expect((deep.structuredContent as { error: { code: string } }).error.code).toBe('QUERY_TOO_COMPLEX');
      const next = (await client.callTool({ name: 'search', arguments: { query: 'aac' } })) as CallToolResult;
      expect(textOf(next)).toContain('short.txt');
    } finally {
      await client.close();
    }
  }, 60_000);
});
