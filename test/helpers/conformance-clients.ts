import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nativeImport, ROOT } from './cli.js';

type Runner = (...args: string[]) => Promise<{ status: number | null; stdout: string; stderr: string }>;
type Client = (url: string, env: NodeJS.ProcessEnv, runnerFor: (env: NodeJS.ProcessEnv) => Runner) => Promise<number>;

/**
 * The conformance suite's clients, run in this process: the suite's client command is
 * test/conformance/forward.mjs, a short process that hands this host its arguments, folder and
 * environment; the host runs the client's mcpkit lines (client-lines.mjs, with mcpkit-runner.mjs:
 * the built CLI in a captured run each) and answers with what they printed and the client's status.
 * A scenario's client was a Node process that loaded mcpkit, most of a scenario's cost.
 */
export async function startClientHost(folder: string): Promise<{ command(kind: 'plain' | 'auth'): string; close(): Promise<void> }> {
  const here = (file: string) => pathToFileURL(join(ROOT, 'test/conformance', file)).href;
  const lines = (await nativeImport(here('client-lines.mjs'))) as { plainClient: Client; authClient: Client };
  const { mcpkitWith } = (await nativeImport(here('mcpkit-runner.mjs'))) as {
    mcpkitWith(env: NodeJS.ProcessEnv, options: { cwd: string; say(text: string): void }): Runner;
  };
  const socket = join(folder, 'clients.sock');
  const open = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (connection) => {
    open.add(connection);
    connection.once('close', () => open.delete(connection));
    let request = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk) => (request += chunk));
    connection.once('end', async () => {
      const send = (message: { say?: string; exit?: number }) => connection.write(`${JSON.stringify(message)}\n`);
      try {
        const { kind, url, env, cwd } = JSON.parse(request) as { kind: string; url: string; env: NodeJS.ProcessEnv; cwd: string };
        const client = kind === 'auth' ? lines.authClient : lines.plainClient;
        send({ exit: await client(url, env, (lineEnv) => mcpkitWith(lineEnv, { cwd, say: (say) => send({ say }) })) });
      } catch (error) {
        send({ say: `the client host: ${(error as Error).stack ?? String(error)}\n`, exit: 1 });
      }
      connection.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, resolve);
  });
  return {
    command: (kind) => `${process.execPath} ${join(ROOT, 'test/conformance/forward.mjs')} ${socket} ${kind}`,
    close: async () => {
      for (const connection of open) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
