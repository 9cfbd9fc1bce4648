import { createServer, type AddressInfo, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport, ROOT } from './cli.js';
import { forwardRequest, type ForwardRequest } from './forward-request.js';

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
  /** The names of the variables the forward handed over. */
  received: string[];
}

export interface ClientHost {
  /** The suite's --command; `auto` picks the OAuth client for auth/* scenarios, else the plain one. */
  command(kind: ClientKind): string;
  /** What the suite's environment must hold for the host to answer its clients. */
  env: Record<string, string>;
  /** The runs of one scenario's client at one wire version (MCP_CONFORMANCE_PROTOCOL_VERSION), oldest first. */
  runsOf(version: string, scenario: string): ClientRun[];
  close(): Promise<void>;
}

/**
 * The conformance suite's clients, run in this process: the suite's client command is
 * test/conformance/forward.sh, a short bash process that hands this host its arguments, folder and
 * environment; the host runs the client's mcpkit lines (client-lines.mjs, with mcpkit-runner.mjs:
 * the built CLI in a captured run each) and answers with what they printed and the client's status.
 * A scenario's client was a Node process that loaded mcpkit, most of a scenario's cost.
 * `concurrency` clients run at a time, the others wait their turn: a batched suite run starts all
 * of a version's clients at once, and thirty OAuth logins side by side on two loaded cores had their
 * requests time out ("fetch failed").
 *
 * Bash speaks TCP, not Unix sockets, so the host listens on loopback and runs nothing for a
 * connection that does not first send its token: the suite's run must carry `env` (the token, in
 * the environment the forward inherits, never on a command line).
 */
export async function startClientHost({ concurrency = Infinity } = {}): Promise<ClientHost> {
  const here = (file: string) => pathToFileURL(join(ROOT, 'test/conformance', file)).href;
  const lines = (await nativeImport(here('client-lines.mjs'))) as { plainClient: Client; authClient: Client };
  const { mcpkitWith } = (await nativeImport(here('mcpkit-runner.mjs'))) as {
    mcpkitWith(env: NodeJS.ProcessEnv, options: { cwd: string; say(text: string): void }): Runner;
  };
  const token = randomBytes(24).toString('hex');
  const open = new Set<Socket>();
  const runs = new Map<string, ClientRun[]>();
  const turn = turns(concurrency);
  const serve = async (connection: Socket, request: ForwardRequest) => {
    const { kind, url, env, cwd } = request;
    const key = `${env.MCP_CONFORMANCE_PROTOCOL_VERSION} ${env.MCP_CONFORMANCE_SCENARIO}`;
    const run: ClientRun = { delivered: false, transcript: '', received: Object.keys(env) };
    runs.set(key, [...(runs.get(key) ?? []), run]);
    // The forward reads what the client printed up to a NUL, then the status.
    const say = (text: string) => {
      run.transcript += text;
      connection.write(text.replaceAll('\0', ''));
    };
    await turn.take();
    const auth = kind === 'auth' || (kind === 'auto' && (env.MCP_CONFORMANCE_SCENARIO ?? '').startsWith('auth/'));
    try {
      run.exit = await (auth ? lines.authClient : lines.plainClient)(url, env, (lineEnv) => mcpkitWith(lineEnv, { cwd, say }));
    } catch (error) {
      say(`the client host: ${(error as Error).stack ?? String(error)}\n`);
      run.exit = 1;
    } finally {
      turn.give();
    }
    let answer = '';
    connection.on('data', (chunk) => {
      answer += chunk;
      if (answer.includes('ack\n')) run.delivered = true;
    });
    connection.end(`\0${run.exit}\n`);
  };
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    open.add(connection);
    connection.once('close', () => open.delete(connection));
    connection.on('error', () => {});
    let request = '';
    connection.setEncoding('utf8');
    const onData = (chunk: string) => {
      request += chunk;
      const read = forwardRequest(request, token);
      if (read === 'incomplete') return;
      connection.off('data', onData);
      if (read === 'refused') connection.destroy();
      else void serve(connection, read);
    };
    connection.on('data', onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    command: (kind) => `bash ${join(ROOT, 'test/conformance/forward.sh')} ${port} ${kind}`,
    env: { MCPKIT_CLIENT_HOST_TOKEN: token },
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
