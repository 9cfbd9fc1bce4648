import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { ROOT, spawnTracked, tempDir } from '../helpers/cli.js';
import { poolPerl } from '../helpers/upstream-pool.js';
import { asSessionModule } from '../fixtures/memory-session-hooks.mjs';
import { fileTools, fileToolsProcess, FIXTURES, SERVERS, waitFor } from '../helpers/upstreams.js';

/**
 * Most tests start server-everything, server-memory and the file-tools, tasks and relay fixtures as
 * sessions of the run's pool (test/helpers/upstream-pool.ts): a Perl relay whose stdin and stdout
 * are joined to one session of the server in one process. A pooled session must answer as the server's own process does,
 * keep nothing of another session's, and read its arguments, folder and environment as a start
 * would; where it cannot (server-everything's get-env reads its process's), it fails loudly.
 */

type Start = { command: string; args: string[]; env?: Record<string, string>; cwd?: string };

async function connected(start: Start): Promise<Client> {
  const client = new Client({ name: 'pool-check', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: start.command,
      args: start.args,
      stderr: 'ignore',
      ...(start.cwd ? { cwd: start.cwd } : {}),
      ...(start.env ? { env: { ...getDefaultEnvironment(), ...start.env } } : {}),
    }),
  );
  return client;
}

async function withClient<T>(start: Start, ask: (client: Client) => Promise<T>): Promise<T> {
  const client = await connected(start);
  try {
    return await ask(client);
  } finally {
    await client.close();
  }
}

/** What a server answers to what a client asks at the start. */
async function startAnswers(client: Client) {
  const capabilities = client.getServerCapabilities() ?? {};
  return {
    server: client.getServerVersion(),
    capabilities,
    instructions: client.getInstructions(),
    tools: await client.listTools(),
    prompts: capabilities.prompts ? await client.listPrompts() : undefined,
    resources: capabilities.resources ? await client.listResources() : undefined,
  };
}

const hasPerl = poolPerl() !== undefined;

/** `start`'s process, asked on its stdin (raw JSON lines, as mcpkit writes them) to initialize and to `call`; `send` writes more. */
function askedRaw(start: Start, call: object, stdout: 'pipe' | 'ignore') {
  const child = spawnTracked(start.command, start.args, { stdio: ['pipe', stdout, 'ignore'] });
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'pool-check', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/call', params: call });
  return { child, send };
}

describe("the suite's upstream pool", () => {
  it('is what SERVERS.everything and .memory, fileTools, FIXTURES.tasks and .relay start wherever Perl is', () => {
    // Without Perl (or off Linux) the suite starts the servers' own processes (slower, the same answers); with it, the pool.
    for (const start of [SERVERS.everything, SERVERS.memory, fileTools('x.json'), FIXTURES.tasks, FIXTURES.relay('x')]) {
      expect(start.command === process.execPath, start.args.join(' ')).toBe(!hasPerl);
    }
  });

  it.runIf(hasPerl)("a server-everything session answers as the package's process, two at once each its own, and refuses get-env", async () => {
    const [own, pooled] = await Promise.all([withClient(SERVERS.everythingProcess, startAnswers), withClient(SERVERS.everything, startAnswers)]);
    expect(pooled).toEqual(own);

    const first = await connected(SERVERS.everything);
    const second = await connected(SERVERS.everything);
    try {
      const echoes = await Promise.all([first, second].map((client, i) => client.callTool({ name: 'echo', arguments: { message: `session ${i}` } })));
      expect(echoes.map((r) => (r.content as { text: string }[])[0]!.text)).toEqual(['Echo: session 0', 'Echo: session 1']);
      // What one session turns on is its own: the package keeps it by the session's id. Were the two
      // one session to it, the second toggle would turn the first's logging off, not its own on.
      const logs: string[][] = [[], []];
      [first, second].forEach((client, i) => client.setNotificationHandler('notifications/message', async (n) => void logs[i]!.push(String(n.params.data))));
      await first.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      expect(await waitFor(() => logs[0]!.length > 0, 5_000)).toBe(true);
      expect(logs[1]).toEqual([]);
      await second.callTool({ name: 'toggle-simulated-logging', arguments: {} });
      expect(await waitFor(() => logs[1]!.length > 0, 5_000)).toBe(true);
      await expect(first.callTool({ name: 'get-env', arguments: {} })).rejects.toThrow(/reads the pool's environment.*SERVERS\.everythingProcess/);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it.runIf(hasPerl)(
    "a file-tools session answers as the fixture's process, reads its tools file from its folder, its STARTED_LOG and START_GATE, and says when the file changes",
    async () => {
      const dir = tempDir('mcpkit-test-pool-');
      const tool = (name: string) => ({ name, description: `the ${name} tool`, inputSchema: { type: 'object' } });
      writeFileSync(join(dir, 'one.json'), JSON.stringify({ tools: [tool('a')], prompts: [{ name: 'p' }], resources: [{ uri: 'x:/r', name: 'r' }] }));
      const log = join(dir, 'started.log');
      const gate = join(dir, 'gate');
      const env = { STARTED_LOG: log };
      // A relative tools file is read from the folder the session was started in, as a process reads it.
      const [own, pooled] = await Promise.all([
        withClient({ ...fileToolsProcess('one.json'), cwd: dir, env }, startAnswers),
        withClient({ ...fileTools('one.json'), cwd: dir, env }, startAnswers),
      ]);
      expect(pooled).toEqual(own);
      expect(readFileSync(log, 'utf8')).toBe('one.json\none.json\n');

      // Held by its gate: the session answers nothing until the file exists.
      const held = connected({ ...fileTools(join(dir, 'one.json')), env: { START_GATE: gate } });
      let answered = false;
      void held.then(() => (answered = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      writeFileSync(gate, '');
      const client = await held;
      try {
        let changed = 0;
        client.setNotificationHandler('notifications/tools/list_changed', async () => void changed++);
        writeFileSync(join(dir, 'one.json'), JSON.stringify({ tools: [tool('a'), tool('b')] }));
        expect(await waitFor(() => changed > 0, 5_000)).toBe(true);
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['a', 'b']);
        const called = await client.callTool({ name: 'b', arguments: { x: 1 } });
        expect((called.content as { text: string }[])[0]!.text).toBe('called b with {"x":1} meta {}');
      } finally {
        await client.close();
      }
    },
  );

  it.runIf(hasPerl)("a server-memory session answers as the package's process, and keeps its graph where its MEMORY_FILE_PATH says", async () => {
    const dir = tempDir('mcpkit-test-pool-');
    const at = (file: string) => ({ MEMORY_FILE_PATH: join(dir, file) });
    const [own, pooled] = await Promise.all([
      withClient({ ...SERVERS.memoryProcess, env: at('own.jsonl') }, startAnswers),
      withClient({ ...SERVERS.memory, env: at('pooled.jsonl') }, startAnswers),
    ]);
    expect(pooled).toEqual(own);

    // Two sessions at once, each on its own file: what one adds is in its file alone, and the
    // package's process reads it from there.
    const graph = async (client: Client) => JSON.stringify((await client.callTool({ name: 'read_graph', arguments: {} })).structuredContent);
    const first = await connected({ ...SERVERS.memory, env: at('first.jsonl') });
    const second = await connected({ ...SERVERS.memory, env: at('second.jsonl') });
    try {
      await first.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'ada', entityType: 'person', observations: ['wrote the first program'] }] },
      });
      expect(await graph(first)).toContain('ada');
      expect(await graph(second)).not.toContain('ada');
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    expect(await withClient({ ...SERVERS.memoryProcess, env: at('first.jsonl') }, graph)).toContain('wrote the first program');
  });

  it('runs server-memory as written but for what its process reads of itself, and refuses a module that is not as expected', () => {
    const text = readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'), 'utf8');
    const made = asSessionModule(text);
    expect(made).toContain('export function memorySession(session) {');
    expect(made).not.toMatch(/\bprocess\./);
    // Every line of the module is there, changed only where the process was read.
    const changed = (line: string) => /^export |process\.|StdioServerTransport\(\)|console\.error/.test(line);
    for (const line of text.split('\n').filter((l) => l.trim() && !changed(l))) expect(made).toContain(line);
    expect(() => asSessionModule(text.replace('new StdioServerTransport()', 'new StdioServerTransport(process.stdin)'))).toThrow(
      /its stdio: .* found 0 times, not 1/,
    );
    expect(() => asSessionModule(`${text}\nprocess.on('exit', () => undefined);\n`)).toThrow(/reads its process where a session cannot answer: process\.on/);
  });

  it.runIf(hasPerl)("a tasks session answers as the fixture's process, and counts its own calls", async () => {
    const [fromProcess, pooled] = await Promise.all([withClient(FIXTURES.tasksProcess, startAnswers), withClient(FIXTURES.tasks, startAnswers)]);
    expect(pooled).toEqual(fromProcess);
    const started = async (client: Client) => ((await client.callTool({ name: 'started', arguments: {} })).content as { text: string }[])[0]!.text;
    const first = await connected(FIXTURES.tasks);
    const second = await connected(FIXTURES.tasks);
    try {
      await first.callTool({ name: 'slow_compute', arguments: { seconds: 0 } });
      expect([await started(first), await started(second)]).toEqual(['1', '0']);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it.runIf(hasPerl)("a relay session answers as the fixture's process, and its crash ends the session in the middle of the call", async () => {
    const [own, pooled] = await Promise.all([withClient(FIXTURES.relayProcess('one'), startAnswers), withClient(FIXTURES.relay('one'), startAnswers)]);
    expect(pooled).toEqual(own);
    const client = await connected(FIXTURES.relay('one'));
    let closed = false;
    client.onclose = () => void (closed = true);
    try {
      await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(/closed/i);
      expect(closed).toBe(true);
    } finally {
      await client.close();
    }
  });

  it.runIf(hasPerl)('a session that cannot start (its tools file is not there) ends at once, as its process does', async () => {
    const missing = join(tempDir('mcpkit-test-pool-'), 'missing.json');
    for (const start of [fileToolsProcess(missing), fileTools(missing)]) {
      await expect(connected(start)).rejects.toThrow(/closed/i);
    }
  });

  it.runIf(hasPerl)(
    'a session ends once its stdin ends: a 2.x server at once, as its process; one whose call was cancelled without waiting for it',
    async () => {
      /** How `start` ends when it is asked to initialize and to `call`, then (after `then`) its stdin ends: whether it exited within 5 s. */
      const endsAfter = async (start: Start, call: object, then: object[] = []) => {
        const { child, send } = askedRaw(start, call, 'ignore');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        await new Promise((r) => setTimeout(r, 300));
        for (const message of then) send(message);
        child.stdin.end();
        const ended = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]);
        child.kill();
        return ended;
      };
      // The tasks fixture's 2.x transport closes as its input ends, and stops the 30 s call it was running.
      const slow = { name: 'slow_compute', arguments: { seconds: 30 } };
      expect(await Promise.all([endsAfter(FIXTURES.tasksProcess, slow), endsAfter(FIXTURES.tasks, slow)])).toEqual([true, true]);
      // A request the client cancelled is answered by no SDK: a session waiting for its answer would never end.
      const long = { name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 3 } };
      expect(await endsAfter(SERVERS.everything, long, [{ method: 'notifications/cancelled', params: { requestId: 2 } }])).toBe(true);
    },
  );

  it.runIf(hasPerl)('a session whose stdin ends answers what it was asked first, as its process does', async () => {
    /** What `start` writes to stdout when it is asked to initialize and to call a 1 s operation, and its stdin then ends. */
    const answers = async (start: Start) => {
      const { child } = askedRaw(start, { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 1 } }, 'pipe');
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stdin.end();
      expect(await waitFor(() => out.includes('"id":2'), 15_000), out).toBe(true);
      child.kill();
      return out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: number; result?: { content?: { text?: string }[] } })
        .find((m) => m.id === 2)?.result?.content?.[0]?.text;
    };
    const [own, pooled] = await Promise.all([answers(SERVERS.everythingProcess), answers(SERVERS.everything)]);
    expect(own).toMatch(/Long running operation completed/);
    expect(pooled).toBe(own);
  });
});
