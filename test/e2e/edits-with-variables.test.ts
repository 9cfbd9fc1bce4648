import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, serveStdioInProcess } from '../helpers/in-process.js';
import { listeningClient } from '../helpers/serve.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * A replicated gateway's config takes its serve settings from each replica's environment, as the
 * README and docs/deploy recommend. Every edit checks what `config validate` checks, on the values
 * the variables give, and writes the text as it was: the placeholders stay, no value is written.
 */
const SERVE_VARIABLES = [
  'serve:',
  '  replica_id: "${REPLICA_ID}"',
  '  allowed_origins: ["${ORIGIN}"]',
  '  port: ${PORT}',
  '  token: "${SERVE_TOKEN}"',
  '  store:',
  '    url: "${STORE_URL}"',
  '    prefix: "${STORE_PREFIX:-team}"',
  '  clients:',
  '    ci:',
  `      token_sha256: ${'a'.repeat(64)}`,
].join('\n');
const SERVERS_PART = `# the team's gateway\nmcp_servers:\n  mem:\n    command: ${JSON.stringify(SERVERS.memory.command)}\n    args: ${JSON.stringify(SERVERS.memory.args)}\n`;
const CONFIG = `${SERVERS_PART}${SERVE_VARIABLES}\n`;
/** For a serve started here: no store (serve --http would reach for it), the rest as above. */
const CONFIG_WITHOUT_STORE = CONFIG.replace(/ {2}store:\n.*\n.*\n/, '');

const VALUES = {
  REPLICA_ID: 'replica-7f',
  // Not the schema's own example origin (https://app.example.com): a value a variable gave is masked wherever it is printed, the example in a message too.
  ORIGIN: 'https://agents.example.org',
  PORT: '8123',
  SERVE_TOKEN: 'serve-token-55e1c0',
  STORE_URL: 'redis://127.0.0.1:6390/0',
};

function configFile(text = CONFIG): string {
  const file = join(tempDir('mcpkit-edit-vars-'), 'mcpkit.yaml');
  writeFileSync(file, text);
  return file;
}

/** The file still says what it said of serve, and holds no value a variable gives. */
function expectWrittenAsItWas(text: string, before = CONFIG) {
  const serveLines = SERVE_VARIABLES.split('\n').slice(0, 8);
  expect(serveLines.filter((line) => before.includes(`${line}\n`)).length).toBeGreaterThanOrEqual(5);
  for (const line of serveLines) if (before.includes(`${line}\n`)) expect(text).toContain(`${line}\n`);
  for (const value of Object.values(VALUES)) expect(text).not.toContain(value);
}

describe('every editing command works on a config whose serve section is variables', () => {
  it.each([
    ['clients add', ['clients', 'add', 'bot'], /\n {4}bot:\n {6}token_sha256: [0-9a-f]{64}\n/],
    ['clients rotate', ['clients', 'rotate', 'ci'], /\n {4}ci:\n {6}token_sha256: (?!a{64})[0-9a-f]{64}\n/],
    ['clients remove', ['clients', 'remove', 'ci'], /^(?![\s\S]*\n {4}ci:)/],
    ['server add', ['server', 'add', 'docs', 'https://docs.example.com/mcp'], /\n {2}docs:\n {4}url: https:\/\/docs\.example\.com\/mcp\n/],
    ['server disable', ['server', 'disable', 'mem'], /\n {4}disabled: true\n/],
    ['view create', ['view', 'create', 'research'], /\ntool_views:\n {2}research:/],
  ])('%s', async (_label, args, landed) => {
    const file = configFile();
    const r = await runCommand([...args, '--json'], { env: cleanEnv({ ...VALUES, MCPKIT_CONFIG: file }) });
    expect(r.stderr + r.stdout).not.toContain('CONFIG_INVALID');
    expect(r.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(landed);
    expect(text.startsWith('# the team')).toBe(true);
    expectWrittenAsItWas(text);
    // What the edit wrote is what config validate takes, with the same environment.
    expect((await runCommand(['config', 'validate'], { env: cleanEnv({ ...VALUES, MCPKIT_CONFIG: file }) })).code).toBe(0);
  });
});

describe('an edit checks the values the variables give, and says what config validate says', () => {
  it.each([
    [
      'a value outside the pattern',
      { REPLICA_ID: 'Replica_7' },
      'serve.replica_id: a replica id is 1-32 lower-case letters, digits and dashes (the value of ${REPLICA_ID})',
    ],
    [
      'an origin that is no origin',
      { ORIGIN: 'gateway.internal' },
      'serve.allowed_origins.0: an origin is scheme://host[:port], e.g. https://app.example.com (the value of ${ORIGIN})',
    ],
    [
      'a store that is no redis URL',
      { STORE_URL: 'http://127.0.0.1:6390' },
      'serve.store.url: url is redis://HOST:PORT[/DB] or rediss:// (TLS), e.g. redis://127.0.0.1:6379/0 (the value of ${STORE_URL})',
    ],
    ['a number that is no number', { PORT: 'eighty' }, 'serve.port: Invalid input: expected number, received string (the value of ${PORT})'],
    ['a number unset', { PORT: undefined }, 'serve.port: environment variable PORT is not set (set it, or write ${PORT:-default})'],
  ])('%s is refused, the file byte for byte as it was', async (_label, change, said) => {
    const file = configFile();
    const env = cleanEnv({ ...VALUES, ...change, MCPKIT_CONFIG: file });
    const r = await runCommand(['clients', 'add', 'bot', '--json'], { env });
    expect(r.code).toBe(1);
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(said);
    expect(readFileSync(file, 'utf8')).toBe(CONFIG);
    // One check: config validate says the same line.
    const validated = await runCommand(['config', 'validate', '--json'], { env });
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain(said);
  });

  it("a text field whose variable only serve's environment holds does not block an edit in a shell without it", async () => {
    const file = configFile();
    const r = await runCommand(['clients', 'add', 'bot'], { env: cleanEnv({ ...VALUES, REPLICA_ID: undefined, ORIGIN: undefined, MCPKIT_CONFIG: file }) });
    expect(r.code).toBe(0);
    expectWrittenAsItWas(readFileSync(file, 'utf8'));
  });
});

describe("an agent's server_add through serve, on such a config", () => {
  const asAgent = async (client: Client) => {
    const r = (await client.callTool({ name: 'server_add', arguments: { name: 'docs', url: 'https://docs.example.com/mcp' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return { isError: r.isError === true, text: r.content[0]!.text };
  };

  it('serve --http: the server is added, the text written as it was', async () => {
    const file = configFile(CONFIG_WITHOUT_STORE);
    expect(CONFIG_WITHOUT_STORE).not.toContain('STORE_URL');
    const served = await serveHttpInProcess(file, { env: cleanEnv(VALUES) });
    // A person approves the remote server an agent names (serve.agent_commands: ask).
    const { client, heard } = listeningClient('agent', { approve: true });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${VALUES.SERVE_TOKEN}` } } }),
    );
    try {
      // serve pinned mem's tools on first use as it started: the lock file's write may wake a reload of its own (unchanged).
      const reloaded = (async () => {
        for (;;) {
          const report = await served.nextReload();
          if (report.outcome !== 'unchanged') return report;
        }
      })();
      const r = await asAgent(client);
      expect(r.text).not.toContain('CONFIG_INVALID');
      expect(r.isError).toBe(false);
      expect(heard.asked).toHaveLength(1);
      expect((await reloaded).outcome).toBe('applied');
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/\n {2}docs:\n {4}url: https:\/\/docs\.example\.com\/mcp\n/);
      expectWrittenAsItWas(text, CONFIG_WITHOUT_STORE);
    } finally {
      await client.close();
    }
  });

  it('serve over stdio: the same', async () => {
    const file = configFile();
    const { client, heard } = await serveStdioInProcess({ config: file, env: cleanEnv(VALUES), approve: true });
    try {
      const r = await asAgent(client);
      expect(r.text).not.toContain('CONFIG_INVALID');
      expect(r.isError).toBe(false);
      expect(heard.asked).toHaveLength(1);
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/\n {2}docs:\n {4}url: https:\/\/docs\.example\.com\/mcp\n/);
      expectWrittenAsItWas(text);
    } finally {
      await client.close();
    }
  });
});
