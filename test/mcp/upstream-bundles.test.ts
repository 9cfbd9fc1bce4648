import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { outputOf, ROOT, spawnTracked, tempDir } from '../helpers/cli.js';
import { kit2025, kit2025Installed, kit2025Node, kit2026, kit2026Installed, kit2026Node } from '../helpers/conformance-kit.js';
import { BUNDLE_DIR, bundleName, startable, startableSuite, suiteEntry, type BundledEntry } from '../helpers/upstream-bundles.js';
import { SNAPSHOTTED, snapshotBuildMs, startArgs } from '../helpers/upstream-snapshots.js';
import { waitFor } from '../helpers/upstreams.js';

/**
 * The suite starts the npm reference servers from bundles (test/helpers/upstream-bundles.ts). A
 * bundle must be the package as it is: the same answers to everything a client asks at the start,
 * and the files the package reads beside its code (server-everything's instructions and docs).
 */
/**
 * What `node ARGV` answered at a start, one start per command line for the whole file: the tests
 * below that ask what a bundle's start did (its answers, the code cache it left), or what the
 * package's own start answers (0.5-0.8 CPU-s a start unbundled), ask the same start, not one more
 * each; so do two starts of a test with the same command line. Only for a start given no
 * environment and writing nothing a test reads, whose answers its command line alone decides. The
 * start has ended when the answers are in.
 */
const starts = new Map<string, ReturnType<typeof whatStartAnswers>>();
function answersOnce(argv: string[]) {
  const key = JSON.stringify(argv);
  let answers = starts.get(key);
  if (!answers) starts.set(key, (answers = whatStartAnswers(argv)));
  return answers;
}

/**
 * Connects a client to `node ARGV` (`env` is added to the client's default environment), asks it
 * what `ask` does, and closes it.
 */
async function withStart<T>(argv: string[], env: Record<string, string>, ask: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'bundle-check', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: argv,
      stderr: 'ignore',
      ...(Object.keys(env).length ? { env: { ...getDefaultEnvironment(), ...env } } : {}),
    }),
  );
  try {
    return await ask(client);
  } finally {
    await client.close();
  }
}

/** What `node ARGV` answers at the start; `env` is added to the client's default environment. */
async function whatStartAnswers(argv: string[], env: Record<string, string> = {}) {
  return withStart(argv, env, startAnswers);
}

/** What a server answers to what a client asks at the start. */
async function startAnswers(client: Client) {
  const capabilities = client.getServerCapabilities() ?? {};
  // A list the server declares and does not answer (the relay fixture has no resource templates) is compared as an answer; any other error fails.
  const list = async <T>(has: unknown, get: () => Promise<T>) =>
    has ? await get().catch((error: { code?: number }) => (error.code === -32601 ? { methodNotFound: true } : Promise.reject(error))) : undefined;
  return {
    server: client.getServerVersion(),
    capabilities,
    instructions: client.getInstructions(),
    tools: await client.listTools(),
    prompts: await list(capabilities.prompts, () => client.listPrompts()),
    resources: await list(capabilities.resources, () => client.listResources()),
    templates: await list(capabilities.resources, () => client.listResourceTemplates()),
  };
}

const PACKAGES: [BundledEntry, string[]][] = [
  ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', ['stdio']],
  ['node_modules/@modelcontextprotocol/server-memory/dist/index.js', []],
  ['node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', ['<dir>']],
];

describe('the bundled upstream servers', () => {
  it.each(PACKAGES)('%s: the bundle answers as the package does', async (entry, args) => {
    const bundle = startable(entry);
    expect(bundle, 'the global setup made the bundle').toBe(join(BUNDLE_DIR, `${bundleName(entry)}.cjs`));
    const dir = tempDir('mcpkit-test-bundles-');
    const withDir = args.map((a) => (a === '<dir>' ? dir : a));
    const [original, bundled] = await Promise.all([answersOnce([join(ROOT, entry), ...withDir]), answersOnce([bundle, ...withDir])]);
    expect(bundled).toEqual(original);
    expect(original.tools.tools.length).toBeGreaterThan(0);
  });

  it('the file-tools fixture starts from its startup snapshot, answers as its source does, and reads its arguments and environment at each start', async () => {
    const start = startArgs('test/fixtures/file-tools-server.mjs');
    expect(start[0], 'the global setup made the snapshot').toBe('--snapshot-blob');
    const dir = tempDir('mcpkit-test-bundles-');
    const log = join(dir, 'started.log');
    const source = join(ROOT, 'test/fixtures/file-tools-server.mjs');
    const tool = (name: string) => ({ name, description: `the ${name} tool`, inputSchema: { type: 'object' } });
    // Two tools files, one with prompts and resources: a start takes its own, nothing of an earlier one's.
    writeFileSync(join(dir, 'one.json'), JSON.stringify([tool('a')]));
    writeFileSync(join(dir, 'two.json'), JSON.stringify({ tools: [tool('b'), tool('c')], prompts: [{ name: 'p' }], resources: [{ uri: 'x:/r', name: 'r' }] }));
    for (const file of ['one.json', 'two.json']) {
      const tools = join(dir, file);
      const [original, snapshotted] = await Promise.all([
        whatStartAnswers([source, tools], { STARTED_LOG: log }),
        whatStartAnswers([...start, tools], { STARTED_LOG: log }),
      ]);
      expect(snapshotted).toEqual(original);
    }
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['one.json', 'one.json', 'two.json', 'two.json']);
  });

  it.each([
    ['test/fixtures/relay-server.mjs', ['first-name'], ['second-name']],
    ['test/fixtures/tasks-server.mjs', [], []],
  ] as [BundledEntry, string[], string[]][])(
    '%s starts from its startup snapshot and answers as its source does, its arguments read at each start',
    async (entry, one, two) => {
      const start = startArgs(entry);
      expect(start[0], 'the global setup made the snapshot').toBe('--snapshot-blob');
      const source = join(ROOT, entry);
      // The tasks fixture takes no arguments: its second two starts are its first two (one each).
      const [original, snapshotted, again, next] = await Promise.all([
        answersOnce([source, ...one]),
        answersOnce([...start, ...one]),
        answersOnce([source, ...two]),
        answersOnce([...start, ...two]),
      ]);
      expect(snapshotted).toEqual(original);
      expect(next).toEqual(again);
      if (one.length) expect([snapshotted.server?.name, next.server?.name]).toEqual([one[0], two[0]]);
    },
  );

  it('server-everything starts from its startup snapshot and answers as the package does, its calls and the environment of each start included', async () => {
    const entry = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';
    const start = startArgs(entry);
    expect(start[0], 'the global setup made the snapshot').toBe('--snapshot-blob');
    // What the tests find the server by: its command line names it.
    expect(start.join(' ')).toContain('server-everything');
    const calls = async (client: Client) => {
      const text = async (name: string, args: Record<string, unknown>) =>
        ((await client.callTool({ name, arguments: args })).content as { type: string; text?: string }[]).map((c) => c.text ?? c.type);
      return {
        echo: await text('echo', { message: 'from a start' }),
        sum: await text('get-sum', { a: 2, b: 40 }),
        // A file beside the package's code, read at the call.
        resource: ((await client.readResource({ uri: 'demo://resource/static/document/architecture.md' })).contents[0] as { text?: string }).text,
      };
    };
    // One start answers and is then called (a start is ~0.3 CPU-s): what it answers is read before any call.
    const [original, [answers, started]] = await Promise.all([
      answersOnce([join(ROOT, entry), 'stdio']),
      withStart([...start, 'stdio'], {}, async (client) => [await startAnswers(client), await calls(client)] as const),
    ]);
    expect(answers).toEqual(original);
    const architecture = readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/docs/architecture.md'), 'utf8');
    expect(started).toEqual({ echo: ['Echo: from a start'], sum: ['The sum of 2 and 40 is 42.'], resource: architecture });
  });

  it('server-memory starts from its startup snapshot, answers as the package does, and reads MEMORY_FILE_PATH at each start', async () => {
    const entry = 'node_modules/@modelcontextprotocol/server-memory/dist/index.js';
    const start = startArgs(entry);
    expect(start[0], 'the global setup made the snapshot').toBe('--snapshot-blob');
    expect(start.join(' ')).toContain('server-memory');
    const dir = tempDir('mcpkit-test-bundles-');
    const [one, two] = [join(dir, 'one.jsonl'), join(dir, 'two.jsonl')];
    const graphOf = async (client: Client, entity?: string) => {
      if (entity) await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: entity, entityType: 'test', observations: [] }] } });
      return ((await client.callTool({ name: 'read_graph', arguments: {} })).structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name);
    };
    const graph = (file: string) => withStart(start, { MEMORY_FILE_PATH: file }, (client) => graphOf(client));
    const original = await whatStartAnswers([join(ROOT, entry)], { MEMORY_FILE_PATH: one });
    // The start that answers is the one that then writes the graph (a start is ~0.26 CPU-s): it answers before it writes.
    const [answers, kept] = await withStart(
      start,
      { MEMORY_FILE_PATH: one },
      async (client) => [await startAnswers(client), await graphOf(client, 'kept')] as const,
    );
    expect(answers).toEqual(original);
    expect(kept).toEqual(['kept']);
    const [again, other] = await Promise.all([graph(one), graph(two)]);
    expect(again).toEqual(['kept']);
    expect(other).toEqual([]);
  });

  it("server-everything's snapshot refuses a start it cannot make as the package would: another transport, or a limit the package reads as it loads", async () => {
    const start = startArgs('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawnTracked(process.execPath, [...start, ...args], { env: { ...getDefaultEnvironment(), ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (d) => (stderr += d));
        child.once('close', (code) => resolve({ code, stderr }));
      });
    const [sse, gzip] = await Promise.all([run(['sse']), run(['stdio'], { GZIP_MAX_FETCH_SIZE: '1' })]);
    expect(sse.code).toBe(1);
    expect(sse.stderr).toContain('the transport sse needs the package');
    expect(gzip.code).toBe(1);
    expect(gzip.stderr).toContain('GZIP_MAX_FETCH_SIZE, read as the package loads, needs the package');
  });

  it('a start from each startup snapshot runs the timers it sets, however late it is first asked', async () => {
    // A probe loaded before the server says which timers the snapshot kept (none may be), holds the
    // process longer than any due time the build could leave, then sets a timer: a build that left
    // one in Node's timers (snapshot-warm-up.mjs handStartToSnapshot) makes a start that late fire
    // none, and server-everything's long calls were never answered.
    const dir = tempDir('mcpkit-test-bundles-');
    const tools = join(dir, 'tools.json');
    writeFileSync(tools, JSON.stringify([{ name: 'a', description: 'a', inputSchema: { type: 'object' } }]));
    const argsOf = new Map<BundledEntry, string[]>([
      ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', ['stdio']],
      ['test/fixtures/file-tools-server.mjs', [tools]],
      ['test/fixtures/relay-server.mjs', ['late']],
    ]);
    const probe = join(ROOT, 'test/fixtures/late-timer-probe.cjs');
    const late = async (entry: BundledEntry) => {
      const start = startArgs(entry);
      const buildMs = snapshotBuildMs(entry);
      expect([start[0], typeof buildMs], `${entry}: the global setup made the snapshot`).toEqual(['--snapshot-blob', 'number']);
      // Longer than any due time the build could leave: its whole life, and the longest timer the
      // servers set (server-everything's 5 s intervals). The probe sleeps: it costs no CPU.
      const waitMs = buildMs! + 6_000;
      const env = { ...getDefaultEnvironment(), PROBE_WAIT_MS: String(waitMs), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
      const child = spawnTracked(process.execPath, ['--expose-internals', '-r', probe, ...start, ...(argsOf.get(entry) ?? [])], {
        env,
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const ended = new Promise<number | null>((resolve) => child.once('close', resolve));
      const deadline = setTimeout(() => child.kill('SIGKILL'), waitMs + 10_000);
      try {
        const code = await ended;
        return { entry, code, kept: /late-timer-probe: timers kept (.*)/.exec(stderr)?.[1], fired: stderr.includes('late-timer-probe: fired') };
      } finally {
        clearTimeout(deadline);
      }
    };
    const starts = await Promise.all([...SNAPSHOTTED.keys()].map(late));
    expect(starts).toEqual([...SNAPSHOTTED.keys()].map((entry) => ({ entry, code: 0, kept: '[]', fired: true })));
  }, 90_000);

  it("server-everything's own start is the one its snapshot's script (test/fixtures/everything-stdio.mjs) copies", () => {
    // A new version of the package that changes its start fails here: compare the fixture's main() with
    // dist/transports/stdio.js (and READ_AS_IT_LOADS with what its modules read of the environment as
    // they load), then record the new digests.
    const digest = (file: string) =>
      createHash('sha256')
        .update(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist', file)))
        .digest('hex');
    expect({ index: digest('index.js'), stdio: digest('transports/stdio.js') }).toEqual({
      index: '26eb2809baf531c3a54300e3af15bfdceb7b4de50e785ab8f2f4acf02cbce1fd',
      stdio: 'cf2e1a4fe437d847c510ac72d693c696fdcac7e2f7bd8f5b825d2acb48a33dc0',
    });
  });

  it("a start keeps V8's code cache beside the bundle, and V8 takes it for the bundle's code", async () => {
    // A copy of the bundle with no cache beside it: the suite's warm-up has made the shared bundle's already.
    const dir = tempDir('mcpkit-test-bundles-');
    for (const file of ['server-memory.cjs', 'server-memory.body.cjs']) copyFileSync(join(BUNDLE_DIR, file), join(dir, file));
    expect((await whatStartAnswers([join(dir, 'server-memory.cjs')], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') })).tools.tools.length).toBeGreaterThan(0);
    const caches = () => readdirSync(dir).filter((f) => f.startsWith('server-memory.body.cjs.') && f.endsWith('.v8cache'));
    // Kept a second after a start, or when it ends (the start above has ended).
    expect(await waitFor(() => caches().length > 0, 10_000)).toBe(true);
    const check = [
      "const { readFileSync } = require('node:fs'); const { wrap } = require('node:module'); const { Script } = require('node:vm');",
      "const body = process.argv[1]; const cache = body + '.' + process.versions.v8 + '.v8cache';",
      "const s = new Script(wrap(readFileSync(body, 'utf8')), { filename: body, cachedData: readFileSync(cache) });",
      'process.stdout.write(String(s.cachedDataRejected));',
    ].join('\n');
    const rejected = await outputOf(process.execPath, ['-e', check, join(dir, 'server-memory.body.cjs')], { cwd: dir, env: process.env });
    expect(rejected).toBe('false');
  });

  it("server-everything's bundle reads the files beside the package's code", async () => {
    const bundled = await answersOnce([startable('node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio']);
    expect(bundled.instructions).toContain('Everything Server');
  });

  const kits = [
    [kit2025, kit2025Node, kit2025Installed],
    [kit2026, kit2026Node, kit2026Installed],
  ] as const;
  it.each(kits.filter(([, , installed]) => installed).map(([kit, node]) => [kit, node]))(
    "the conformance suite's bundle (%s) lists the scenarios the suite does",
    async (kit, node) => {
      const original = suiteEntry(kit);
      expect(startableSuite(kit)).not.toBe(original);
      const run = { cwd: tempDir('mcpkit-test-bundles-'), env: { ...process.env, NO_COLOR: '1' } };
      const [listed, listedBundled] = await Promise.all([outputOf(node, [original, 'list'], run), outputOf(node, [startableSuite(kit), 'list'], run)]);
      expect(listedBundled).toBe(listed);
      expect(listed).toMatch(/server-initialize/);
    },
  );
});
