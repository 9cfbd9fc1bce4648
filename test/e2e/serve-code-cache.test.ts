import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { cleanEnv, spawnTracked, tempDir } from '../helpers/cli.js';
import { packageCopy } from '../helpers/package-copy.js';
import { waitFor, writeConfig } from '../helpers/upstreams.js';

/**
 * `mcpkit serve` starts from its script form with V8's code cache (src/cli/cached-script.ts). Each
 * test runs a copy of the built package, so that what a start keeps beside its code is its own (its
 * ES modules linked, not copied: no test here writes one).
 * MCPKIT_DEBUG_CODE_CACHE=1 has the loader say on stderr what V8 did with the cache.
 */
const config = writeConfig({ mcp_servers: {} });

interface Served {
  code: number | null;
  stderr: string;
  tools: string[];
  serverTitle: string | undefined;
}

/**
 * One stdio session, start to exit: initialize, tools/list, stdin closed. With `call`, a tool is
 * called after the listing (the cache is made a second after the first call is answered) and the
 * session stays open until the loader says it wrote the cache: `keptWhileOpen` says whether it
 * was still running then, `writtenBeforeCall` whether a cache had been written before the call.
 */
async function serveOnce(
  pkg: string,
  env: Record<string, string | undefined> = {},
  call = false,
): Promise<Served & { keptWhileOpen?: boolean; writtenBeforeCall?: boolean }> {
  const child = spawnTracked(process.execPath, [join(pkg, 'bin/run.js'), 'serve', '--config', config], {
    env: cleanEnv({ MCPKIT_DEBUG_CODE_CACHE: '1', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const answer = async (id: number) => {
    const found = () => stdout.split('\n').find((line) => line.startsWith('{') && (JSON.parse(line) as { id?: number }).id === id);
    if (!(await waitFor(() => found() !== undefined || child.exitCode !== null, 60_000))) throw new Error(`no answer ${id}: ${stderr}`);
    const line = found();
    if (!line) throw new Error(`serve ended before answering ${id}: ${stderr}`);
    return JSON.parse(line) as { result: { tools?: { name: string }[]; serverInfo?: { title?: string } } };
  };
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cache-test', version: '1' } } });
  const serverTitle = (await answer(1)).result.serverInfo?.title;
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list' });
  const tools = (await answer(2)).result.tools!.map((t) => t.name);
  let called: { keptWhileOpen: boolean; writtenBeforeCall: boolean } | undefined;
  if (call) {
    // Before, the cache was made a second after the start, whatever the session had run by then.
    // A wait, not a bound: that second passes here with no call made.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const writtenBeforeCall = stderr.includes('written');
    send({ id: 3, method: 'tools/call', params: { name: 'config_show', arguments: {} } });
    expect((await answer(3)).result).not.toHaveProperty('isError', true);
    await waitFor(() => stderr.includes('serve-fast-path written:') || child.exitCode !== null, 60_000);
    called = { keptWhileOpen: stderr.includes('serve-fast-path written:') && child.exitCode === null, writtenBeforeCall };
  }
  child.stdin.end();
  const code = await exited;
  // stdout is the MCP channel: whatever the cache did, nothing but JSON-RPC was written there.
  for (const line of stdout.split('\n').filter((l) => l !== '')) expect(jsonRpcVersion(line), line).toBe('2.0');
  return { code, stderr, tools, serverTitle, ...called };
}

function jsonRpcVersion(line: string): unknown {
  try {
    return (JSON.parse(line) as { jsonrpc?: unknown }).jsonrpc;
  } catch {
    return undefined;
  }
}

/** A command line the fast path leaves to oclif: its exit code and stdout. */
async function runBin(pkg: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawnTracked(process.execPath, [join(pkg, 'bin/run.js'), ...args], {
    env: cleanEnv({ MCPKIT_DEBUG_CODE_CACHE: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stdout };
}

/** What the loader said of the cache: the first word after the entry's name, and the file. */
function said(served: Served): { what: string; file: string } {
  const line = /mcpkit code cache: serve-fast-path (taken from|rejected:|absent:|not cached:) (\S+)/.exec(served.stderr);
  if (!line) throw new Error(`the loader said nothing of the cache: ${served.stderr}`);
  return { what: line[1]!.replace(/:$/, ''), file: line[2]! };
}

const cachesIn = (dir: string) => readdirSync(dir).filter((f) => /\.v8cache(\.\d+\.tmp)?$/.test(f));

describe.concurrent('serve starts from V8 code cache', () => {
  it('the first serve writes the cache beside its code, a second after its first call is answered (not before), while it runs; the next takes it; other flags keep their own; a damaged one is replaced', async () => {
    const pkg = packageCopy({ linkModules: true });
    const first = await serveOnce(pkg, {}, true);
    expect(first.writtenBeforeCall).toBe(false);
    expect(first.keptWhileOpen).toBe(true);
    expect(first.stderr.match(/written/g)).toHaveLength(1);
    expect(first.code).toBe(0);
    expect(first.tools.length).toBeGreaterThan(0);
    const { what, file } = said(first);
    expect(what).toBe('absent');
    expect(file).toMatch(new RegExp(`^${pkg}/dist/cli/serve-fast-path\\.[0-9a-f]{16}\\.[^/]+\\.v8cache$`));
    expect(first.stderr).toContain(`serve-fast-path written: ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // V8 rejects a cache made under other flags: a start under others keeps its own, and leaves this one.
    const flagged = await serveOnce(pkg, { NODE_OPTIONS: '--max-old-space-size=512' });
    expect(said(flagged).what).toBe('absent');
    expect(said(flagged).file).not.toBe(file);
    expect(flagged.stderr).toContain(`serve-fast-path written: ${said(flagged).file}`);

    const second = await serveOnce(pkg);
    expect(said(second)).toEqual({ what: 'taken from', file });
    expect(second.tools).toEqual(first.tools);
    expect(second.stderr).not.toContain('written');
    expect(cachesIn(join(pkg, 'dist/cli')).sort()).toEqual([file, said(flagged).file].map((f) => f.slice(f.lastIndexOf('/') + 1)).sort());

    const garbage = randomBytes(statSync(file).size);
    writeFileSync(file, garbage);
    const damaged = await serveOnce(pkg);
    expect(said(damaged)).toEqual({ what: 'rejected', file });
    expect(damaged.code).toBe(0);
    expect(damaged.tools).toEqual(first.tools);
    expect(damaged.stderr).toContain(`serve-fast-path written: ${file}`);
    expect(readFileSync(file).equals(garbage)).toBe(false);
    expect(said(await serveOnce(pkg))).toEqual({ what: 'taken from', file });
  }, 180_000);

  // One package copy for both (a copy is ~0.5 CPU-s): neither start may write beside the code, which each asserts.
  it("code another user owns (or this user cannot write): the cache goes to the user's own cache folder; with no place for a cache either, serve runs without one, and says nothing of it", async () => {
    const pkg = packageCopy({ linkModules: true });
    foreignCode(join(pkg, 'dist/cli'));
    const xdg = tempDir('mcpkit-xdg-cache-');
    // Folders named as old caches: the prune after the write may not delete them, nor fail the write.
    const cacheDir = join(xdg, 'mcpkit/code-cache');
    const inTheWay = [1, 2, 3, 4].map((n) => join(cacheDir, `serve-fast-path.${String(n).repeat(16)}.1.0.v8cache`));
    for (const dir of inTheWay) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      utimesSync(dir, 1_000_000, 1_000_000);
    }
    const first = await serveOnce(pkg, { XDG_CACHE_HOME: xdg });
    const { what, file } = said(first);
    expect(what).toBe('absent');
    expect(file.startsWith(`${cacheDir}/serve-fast-path.`)).toBe(true);
    expect(first.stderr).toContain(`written: ${file}`);
    expect(first.stderr).not.toContain('not written');
    for (const dir of inTheWay) expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(join(xdg, 'mcpkit/code-cache')).mode & 0o777).toBe(0o700);
    expect(said(await serveOnce(pkg, { XDG_CACHE_HOME: xdg }))).toEqual({ what: 'taken from', file });
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([]);

    // A file where the cache folder's root would be: nothing can be made under it.
    const notAFolder = join(tempDir(), 'cache');
    writeFileSync(notAFolder, '');
    const served = await serveOnce(pkg, { XDG_CACHE_HOME: notAFolder });
    expect(said(served).what).toBe('not cached');
    expect(served.code).toBe(0);
    expect(served.tools.length).toBeGreaterThan(0);
    // Only the lines MCPKIT_DEBUG_CODE_CACHE asked for speak of it: no error, no warning.
    expect(served.stderr.replace(/^mcpkit code cache: .*\n/gm, '')).not.toMatch(/cache|v8/i);
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([]);
  }, 180_000);

  // One package copy for both (a copy is ~0.5 CPU-s, a start ~0.77): the cache the starts together
  // leave, which the next start takes, is the one the hostile scenarios then change.
  it('serves starting together each answer, and leave one whole cache that the next start takes; a cache others could have written, a link to one, or one made before the script was edited is never given to V8: it is made anew', async () => {
    const pkg = packageCopy({ linkModules: true });
    const together = await Promise.all([1, 2, 3].map(() => serveOnce(pkg)));
    for (const served of together) {
      expect(served.code).toBe(0);
      // Each found none, unless another had finished and written one before it started.
      expect(['absent', 'taken from']).toContain(said(served).what);
    }
    const caches = cachesIn(join(pkg, 'dist/cli'));
    expect(caches).toHaveLength(1);
    const file = join(pkg, 'dist/cli', caches[0]!);
    expect(said(await serveOnce(pkg))).toEqual({ what: 'taken from', file });

    chmodSync(file, 0o666);
    const writable = await serveOnce(pkg);
    expect(said(writable)).toEqual({ what: 'absent', file });
    expect(writable.stderr).toContain(`written: ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const elsewhere = join(tempDir(), 'cache');
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    const linked = await serveOnce(pkg);
    expect(said(linked)).toEqual({ what: 'absent', file });
    expect(lstatSync(file).isSymbolicLink()).toBe(false);

    // An edit of the script in place, of the same length and keeping its hash line: V8 would take
    // the old cache (it checks only the length) and run the old code.
    const script = join(pkg, 'dist/cli/serve-fast-path.script.cjs');
    const text = readFileSync(script, 'utf8');
    const edited = text.replace('title:"mcpkit",version:options.runtime', 'title:"MCPKIT",version:options.runtime');
    expect(edited).not.toBe(text);
    const { ino } = statSync(script);
    writeFileSync(script, edited);
    expect(statSync(script).ino).toBe(ino);
    const afterEdit = await serveOnce(pkg);
    expect(afterEdit.serverTitle).toBe('MCPKIT');
    expect(said(afterEdit).what).toBe('absent');
    expect(said(afterEdit).file).not.toBe(file);
    expect(afterEdit.stderr).toContain(`written: ${said(afterEdit).file}`);
  }, 180_000);

  it("MCPKIT_CODE_CACHE=off, `serve --help` (nor oclif's script for it), or an install without the script or whose script cannot be read keeps no cache (the ES modules run); oclif's script keeps one from a command, not from --version", async () => {
    const pkg = packageCopy({ linkModules: true });
    const off = await serveOnce(pkg, { MCPKIT_CODE_CACHE: 'off' });
    expect(off.code).toBe(0);
    expect(off.stderr).toContain('serve-fast-path not cached: MCPKIT_CODE_CACHE=off; running its ES module');
    expect(off.tools.length).toBeGreaterThan(0);

    // A command line the fast path leaves to oclif compiled little of serve: its cache is not kept.
    // Nor is that of oclif's own script form (cli-main): a line that only asks for help compiles
    // little of the commands, and the first cache of a build is kept for good (bin/run.js).
    const help = await runBin(pkg, ['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('serve');
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([]);

    const script = join(pkg, 'dist/cli/serve-fast-path.script.cjs');
    rmSync(script);
    const without = await serveOnce(pkg);
    expect(without.code).toBe(0);
    expect(without.stderr).toContain(`serve-fast-path not cached: ${script} is missing; running its ES module`);
    expect(without.tools).toEqual(off.tools);

    // Nor does a script that cannot be read fail the start (EISDIR here: root reads through chmod 000).
    mkdirSync(script);
    const unreadable = await serveOnce(pkg);
    expect(unreadable.code).toBe(0);
    expect(unreadable.stderr).toContain(`serve-fast-path not cached: ${script} is not a file; running its ES module`);
    expect(unreadable.tools).toEqual(off.tools);
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([]);

    // oclif's script form: no cache from a line that asks for the version only, one from a command's successful run.
    expect((await runBin(pkg, ['--version'])).code).toBe(0);
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([]);
    expect((await runBin(pkg, ['config', 'path'])).code).toBe(0);
    expect(cachesIn(join(pkg, 'dist/cli'))).toEqual([expect.stringMatching(/^cli-main\.[0-9a-f]{16}\..+\.v8cache$/)]);
  }, 180_000);
});

/**
 * Makes a folder of code one this user must not keep a cache in: another user's (root can give it
 * away), else one it cannot write. Either way, a cache there could hold code someone else wrote.
 */
function foreignCode(dir: string): void {
  if (process.getuid!() === 0) {
    chownSync(dir, 65534, 65534);
    return;
  }
  chmodSync(dir, 0o555);
  onTestFinished(() => chmodSync(dir, 0o755)); // so that the folder can be removed
}
