import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport, ROOT } from './cli.js';

type Runner = (...args: string[]) => Promise<{ status: number | null; stdout: string; stderr: string }>;
type Client = (url: string, env: NodeJS.ProcessEnv, runnerFor: (env: NodeJS.ProcessEnv) => Runner) => Promise<number>;
export type ClientKind = 'plain' | 'auth' | 'auto';

/**
 * One run of a client, as the host saw it: the status it ended with, whether that status reached
 * the suite (the forward acknowledged it: a forward the suite killed at its timeout never does),
 * and what its mcpkit lines printed.
 */
export interface ClientRun {
  exit?: number;
  delivered: boolean;
  transcript: string;
}

export interface ClientHost {
  /** The suite's --command; `auto` picks the OAuth client for auth/* scenarios, else the plain one. */
  command(kind: ClientKind): string;
  /** The runs of one scenario's client at one wire version (MCP_CONFORMANCE_PROTOCOL_VERSION), oldest first. */
  runsOf(version: string, scenario: string): ClientRun[];
  close(): Promise<void>;
}

/**
 * The conformance suite's clients, run in this process: the suite's client command is
 * test/conformance/forward.mjs, a short process that hands this host its arguments, folder and
 * environment; the host runs the client's mcpkit lines (client-lines.mjs, with mcpkit-runner.mjs:
 * the built CLI in a captured run each) and answers with what they printed and the client's status.
 * A scenario's client was a Node process that loaded mcpkit, most of a scenario's cost.
 * `concurrency` clients run at a time, the others wait their turn: a batched suite run starts all
 * of a version's clients at once, and thirty OAuth logins side by side on two loaded cores had their
 * requests time out ("fetch failed").
 */
export async function startClientHost(folder: string, { concurrency = Infinity } = {}): Promise<ClientHost> {
  const here = (file: string) => pathToFileURL(join(ROOT, 'test/conformance', file)).href;
  const lines = (await nativeImport(here('client-lines.mjs'))) as { plainClient: Client; authClient: Client };
  const { mcpkitWith } = (await nativeImport(here('mcpkit-runner.mjs'))) as {
    mcpkitWith(env: NodeJS.ProcessEnv, options: { cwd: string; say(text: string): void }): Runner;
  };
  const socket = join(folder, 'clients.sock');
  const open = new Set<Socket>();
  const runs = new Map<string, ClientRun[]>();
  const turn = turns(concurrency);
  const serve = async (connection: Socket, request: { kind: ClientKind; url: string; env: NodeJS.ProcessEnv; cwd: string }) => {
    const { kind, url, env, cwd } = request;
    const key = `${env.MCP_CONFORMANCE_PROTOCOL_VERSION} ${env.MCP_CONFORMANCE_SCENARIO}`;
    const run: ClientRun = { delivered: false, transcript: '' };
    runs.set(key, [...(runs.get(key) ?? []), run]);
    const send = (message: { say?: string; exit?: number }) => {
      if (message.say) run.transcript += message.say;
      connection.write(`${JSON.stringify(message)}\n`);
    };
    await turn.take();
    const auth = kind === 'auth' || (kind === 'auto' && (env.MCP_CONFORMANCE_SCENARIO ?? '').startsWith('auth/'));
    try {
      run.exit = await (auth ? lines.authClient : lines.plainClient)(url, env, (lineEnv) => mcpkitWith(lineEnv, { cwd, say: (say) => send({ say }) }));
    } catch (error) {
      send({ say: `the client host: ${(error as Error).stack ?? String(error)}\n` });
      run.exit = 1;
    } finally {
      turn.give();
    }
    let answer = '';
    connection.on('data', (chunk) => {
      answer += chunk;
      if (answer.includes('ack\n')) run.delivered = true;
    });
    send({ exit: run.exit });
    connection.end();
  };
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    open.add(connection);
    connection.once('close', () => open.delete(connection));
    connection.on('error', () => {});
    let request = '';
    connection.setEncoding('utf8');
    const onData = (chunk: string) => {
      request += chunk;
      const end = request.indexOf('\n');
      if (end < 0) return;
      connection.off('data', onData);
      void serve(connection, JSON.parse(request.slice(0, end)));
    };
    connection.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  return {
    command: (kind) => `${process.execPath} ${join(ROOT, 'test/conformance/forward.mjs')} ${socket} ${kind}`,
    runsOf: (version, scenario) => runs.get(`${version} ${scenario}`) ?? [],
    close: async () => {
      for (const connection of open) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A counting semaphore: take() waits while `limit` holders have not given back. */
function turns(limit: number): { take(): Promise<void>; give(): void } {
  let held = 0;
  const waiting: (() => void)[] = [];
  return {
    take: async () => {
      if (held < limit) {
        held++;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    give: () => {
      const next = waiting.shift();
      if (next) next();
      else held--;
    },
  };
}
