import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { editConfig } from '../../src/config/edit.js';
import { ROOT, tempDir, spawnTracked } from '../helpers/cli.js';

const CHILD = join(ROOT, 'test/fixtures/edit-child.mjs');

function startEdit(path: string, name: string, mode?: 'pause' | 'together') {
  const child = spawnTracked(process.execPath, [CHILD, path, name, ...(mode ? [mode] : [])], {
    stdio: [mode === 'together' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  const said = (word: string) => new Promise<void>((resolve) => child.stdout.on('data', () => out.includes(word) && resolve()));
  return { child, exited, paused: said('PAUSED'), ready: said('READY') };
}

const serverNames = (path: string) => Object.keys((parse(readFileSync(path, 'utf8')) as { mcp_servers?: object }).mcp_servers ?? {});
const leftovers = (path: string) => readdirSync(dirname(path)).filter((f) => f !== 'mcpkit.yaml');

describe('config edits across processes', () => {
  // Twelve writers, each loaded first and then released at one moment, so that their reads and
  // writes overlap (50 started one after another cost four times the CPU and raced only as their
  // starts happened to fall): with the lock taken out of editConfig, updates were lost in 3 runs of 3.
  it('12 processes adding distinct servers at once: all 12 land, valid YAML, nothing left behind', async () => {
    const path = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(path, '# shared by 12 writers\nmcp_servers: {}\n');
    const names = Array.from({ length: 12 }, (_, i) => `server-${i}`);
    const edits = names.map((name) => startEdit(path, name, 'together'));
    await Promise.all(edits.map((e) => Promise.race([e.ready, e.exited])));
    for (const e of edits) e.child.stdin?.end('go\n');
    const results = await Promise.all(edits.map((e) => e.exited));
    for (const r of results) expect(r, r.err).toMatchObject({ code: 0 });
    expect(serverNames(path).sort()).toEqual([...names].sort());
    expect(readFileSync(path, 'utf8')).toContain('# shared by 12 writers');
    expect(leftovers(path)).toEqual([]);
  }, 120_000);

  it('a process killed between writing the temp file and the rename leaves the old file; the next edit recovers the lock', async () => {
    const path = join(tempDir(), 'mcpkit.yaml');
    const original = '# before\nmcp_servers:\n  keep: { command: echo }\n';
    writeFileSync(path, original);
    const edit = startEdit(path, 'doomed', 'pause');
    await edit.paused;
    expect(existsSync(`${path}.lock`)).toBe(true);
    expect(leftovers(path).some((f) => f.endsWith('.tmp'))).toBe(true);
    edit.child.kill('SIGKILL');
    expect((await edit.exited).signal).toBe('SIGKILL');
    expect(readFileSync(path, 'utf8')).toBe(original);

    // The dead process's lock and temp file must not block or linger.
    const started = Date.now();
    await editConfig(path, (doc) => doc.setIn(['mcp_servers', 'after'], doc.createNode({ command: 'echo' })));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(serverNames(path)).toEqual(['keep', 'after']);
    expect(leftovers(path)).toEqual([]);
  });

  it('kills at random moments during edits of a large file never leave a partial file', async () => {
    const path = join(tempDir(), 'mcpkit.yaml');
    // ~120 KB: many pages to write, parsed in a fraction of the time.
    const servers = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`s${i}`, { command: 'echo', args: ['x'.repeat(200)] }]));
    writeFileSync(
      path,
      `mcp_servers:\n${Object.entries(servers)
        .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
        .join('\n')}\n`,
    );
    // The names just written, in their order: parsing the 120 KB back (0.25-0.4 CPU-s here) would
    // give this list again. Each file an edit changed is still parsed below.
    let expected = Object.keys(servers);
    // Each edit is loaded first and released at a known moment (a kill timed from the process's start
    // landed while it was still loading, never near its write). The first runs to its end: how long an
    // edit takes here, now, from its release to its end. The others are killed at random moments
    // across the later part of that span (the end of its parse, the temp file's write, the rename).
    let span = 0;
    for (let i = 0; i < 6; i++) {
      const before = readFileSync(path, 'utf8');
      const edit = startEdit(path, `k${i}`, 'together');
      await edit.ready;
      const released = Date.now();
      edit.child.stdin!.end('go\n');
      if (i === 0) {
        expect((await edit.exited).code).toBe(0);
        span = Date.now() - released;
      } else {
        await new Promise((r) => setTimeout(r, span * (0.6 + 0.5 * Math.random())));
        edit.child.kill('SIGKILL');
        await edit.exited;
      }
      const after = readFileSync(path, 'utf8');
      if (after === before) continue; // the text already checked, byte for byte
      const names = serverNames(path); // throws if the file is not whole YAML
      expect(names).toEqual([...expected, `k${i}`]);
      expected = names;
    }
    // Whatever was left behind is cleaned up by the next edit.
    await editConfig(path, (doc) => doc.setIn(['serve', 'port'], 1));
    expect(leftovers(path)).toEqual([]);
  }, 120_000);
});
