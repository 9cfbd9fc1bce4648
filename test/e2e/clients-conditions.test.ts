import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/** `clients --who NAME --tool T --args JSON` agrees with what serve does, on a table of cases. */
let config: string;
let served: InProcessServe;

beforeAll(async () => {
  config = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything },
      tool_views: { v: { servers: ['everything'], conditions: { echo: { when: 'size(args.message) <= 8', message: 'Short messages only.' } } } },
      serve: {
        clients: {
          bot: { token: 'tok-bot', conditions: { '*echo': 'args.message.startsWith("acme/")', 'get-sum': 'args.a < 10' } },
          other: { token: 'tok-other' },
        },
      },
    }),
  );
  served = await serveHttpInProcess(config, { env: cleanEnv() });
});
afterAll(async () => served?.close());

async function serveSays(who: string, view: string | undefined, tool: string, args: Record<string, unknown>): Promise<boolean> {
  const client = new Client({ name: 'agreement', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}${view ? `/view/${view}/mcp` : '/mcp'}`), {
      requestInit: { headers: { authorization: `Bearer tok-${who}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    if (result.isError) expect(JSON.stringify(result)).toContain('CONDITION_FAILED');
    return !result.isError;
  } finally {
    await client.close();
  }
}

describe('clients --who --args agrees with serve', () => {
  it.each([
    ['bot', 'v', 'echo', { message: 'acme/app' }, true, /its conditions hold/],
    ['bot', 'v', 'echo', { message: 'evil/app' }, false, /"\*echo" of serve\.clients\.bot\.conditions/],
    ['bot', 'v', 'echo', { message: 'acme/a-long-one' }, false, /"echo" of tool_views\.v\.conditions: Short messages only\./],
    ['other', 'v', 'echo', { message: 'evil/app' }, true, /"echo" of tool_views\.v\.conditions/],
    ['other', 'v', 'echo', { message: 'too long for it' }, false, /Short messages only/],
    ['bot', undefined, 'everything__echo', { message: 'acme/xyz-long' }, true, /"\*echo" of serve\.clients\.bot\.conditions/],
    ['bot', undefined, 'everything__get-sum', { a: 1, b: 2 }, true, /no condition names it|its conditions hold/],
    ['bot', 'v', 'get-sum', { a: 20, b: 2 }, false, /"get-sum" of serve\.clients\.bot\.conditions/],
    ['bot', 'v', 'echo', {}, false, /could not be evaluated/],
  ] as const)('%s on %s calls %s with %j: %s', async (who, view, tool, args, allowed, because) => {
    const dry = await runCommand(
      ['clients', '--who', who, '--tool', tool, ...(view ? ['--view', view] : []), '--args', JSON.stringify(args), '--json', '--config', config],
      { env: cleanEnv() },
    );
    const verdict = JSON.parse(dry.stdout) as { allowed: boolean; because: string };
    expect(verdict.allowed, dry.stdout + dry.stderr).toBe(allowed);
    expect(verdict.because).toMatch(because);
    expect(dry.code).toBe(allowed ? 0 : 1);
    expect(await serveSays(who, view, tool, args)).toBe(allowed);
  });

  it('refuses --args that are not a JSON object', async () => {
    const dry = await runCommand(['clients', '--who', 'bot', '--tool', 'echo', '--view', 'v', '--args', '[1]', '--config', config], { env: cleanEnv() });
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('--args must be a JSON object');
  });
});

describe('the terminal writes and shows conditions', () => {
  it('clients add --condition writes them; a bad one is refused, the file left byte for byte', async () => {
    const file = join(tempDir(), 'mcpkit.yaml');
    writeFileSync(file, '# the team\nserve: {}\n');
    const before = readFileSync(file, 'utf8');
    const bad = await runCommand(['clients', 'add', 'bot', '--condition', 'echo=args.message ==', '--config', file], { env: cleanEnv() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('serve.clients.bot.conditions.echo: column 16: Unexpected token');
    expect(readFileSync(file, 'utf8')).toBe(before);
    const malformed = await runCommand(['clients', 'add', 'bot', '--condition', 'no-equals-sign', '--config', file], { env: cleanEnv() });
    expect(malformed.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(before);
    const good = await runCommand(
      ['clients', 'add', 'bot', '--condition', 'echo=args.message == "a=b"', '--condition', '*=size(json(args)) < 100', '--config', file],
      { env: cleanEnv() },
    );
    expect(good.code, good.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('echo: args.message == "a=b"');
  });

  it("view show lists a view's conditions", async () => {
    const shown = await runCommand(['view', 'show', 'v', '--json', '--config', config], { env: cleanEnv() });
    expect(JSON.parse(shown.stdout).conditions).toEqual([{ tools: 'echo', when: 'size(args.message) <= 8', message: 'Short messages only.' }]);
  });
});
