import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { BIN, cleanEnv, spawnTracked, type PipedChild } from './cli.js';
import { waitFor } from './upstreams.js';

/** What a client of `serve` heard: list_changed (with when) and the log messages it was sent. */
export interface Heard {
  toolsChanged: number;
  changedAt: number[];
  messages: { level: string; data: unknown }[];
  /** The forms the person was asked to approve (a client made with `approve`). */
  asked: string[];
}

/** What a client has heard before anything came. */
export const nothingHeard = (): Heard => ({ toolsChanged: 0, changedAt: [], messages: [], asked: [] });

/**
 * A client of serve that keeps what it hears in `heard`; one made with `approve` (a person saying
 * yes to every form) offers elicitation and answers it.
 */
export function listeningClient(name: string, options: { approve?: boolean } = {}): { client: Client; heard: Heard } {
  const client = new Client({ name, version: '1.0.0' }, options.approve ? { capabilities: { elicitation: { form: {} } } } : {});
  const heard = nothingHeard();
  if (options.approve) {
    client.setRequestHandler('elicitation/create', async (request) => {
      heard.asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
  }
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    heard.toolsChanged++;
    heard.changedAt.push(Date.now());
  });
  client.setNotificationHandler('notifications/message', async (n) => void heard.messages.push(n.params));
  return { client, heard };
}

/**
 * `mcpkit serve --config CONFIG --exposure direct` over stdio with the real SDK client, which
 * counts list_changed and keeps the log messages it is sent; serve's stderr is kept.
 */
export async function serveStdioClient(config: string, name = 'e2e', env: Record<string, string | undefined> = {}, options: { approve?: boolean } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--config', config, '--exposure', 'direct'],
    env: cleanEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const { client, heard } = listeningClient(name, options);
  await client.connect(transport);
  return { client, transport, heard, stderr: () => stderr, pid: transport.pid! };
}

/** `mcpkit serve --http --port 0 --config CONFIG` up and listening; its base URL from the line it prints. */
export async function serveHttpChild(
  config: string,
  extra: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: PipedChild; url: string; stderr: () => string }> {
  const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config, ...extra], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const up = await waitFor(() => /listening on (http:\/\/\S+)\/mcp/.test(stderr) || child.exitCode !== null, 20_000);
  const url = /listening on (http:\/\/\S+)\/mcp/.exec(stderr)?.[1];
  if (!up || !url) throw new Error(`serve --http did not start: ${stderr}`);
  return { child, url, stderr: () => stderr };
}
