import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../helpers/cli.js';
import { serveHttpInProcess, type InProcessServe } from '../helpers/in-process.js';
import { SERVERS } from '../helpers/upstreams.js';

/**
 * A script acts on what it is told (issue 66), through serve with a real upstream: a named client's
 * rate refuses a script's call with RATE_LIMITED and retry_after_ms; the script catches it by its
 * code and waits with sleep(ms); a refusal it does not catch ends the run with that code.
 */
let http: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  const config = join(tempDir(), 'mcpkit.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      mcp_servers: { everything: SERVERS.everything },
      serve: { exposure: 'code', code: { timeout_ms: 20_000 }, clients: { bob: { token: 'tok-bob', rate: '3/s' } } },
    }),
  );
  http = await serveHttpInProcess(config, { env: cleanEnv(), exposure: undefined });
});
afterAll(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  await http?.close();
});

async function bob(): Promise<Client> {
  const client = new Client({ name: 'code-retry', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer tok-bob' } } }));
  clients.push(client);
  return client;
}
const run = (client: Client, code: string) => client.callTool({ name: 'mcpkit_run_code', arguments: { code } }) as Promise<CallToolResult>;
type Outcome = { result?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } };
const outcomeOf = (r: CallToolResult) => r.structuredContent as Outcome;

describe("a client's rate inside a script", () => {
  it('the script catches RATE_LIMITED by its code and honours retry_after_ms with sleep: all its calls are answered', async () => {
    const client = await bob();
    const answer = await run(
      client,
      `const answers = []; let refused = 0, waited = 0;
       for (let i = 0; i < 6; i++) {
         for (;;) {
           try { answers.push(await tools.everything.echo({ message: 'n' + i })); break; }
           catch (e) {
             if (e.code !== 'RATE_LIMITED') throw e;
             refused++; waited += e.details.retry_after_ms;
             await sleep(e.details.retry_after_ms);
           }
         }
       }
       return { answers: answers.length, refused, waited };`,
    );
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    const result = outcomeOf(answer).result as { answers: number; refused: number; waited: number };
    expect(result.answers).toBe(6);
    expect(result.refused).toBeGreaterThan(0);
    expect(result.waited).toBeGreaterThan(0);
  });

  it('a refusal the script does not catch ends the run with RATE_LIMITED and retry_after_ms', async () => {
    const client = await bob();
    // bob's bucket (3/s) fills again in a second: the run itself is admitted, its fourth call is not.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answer = await run(client, `for (let i = 0; i < 10; i++) await tools.everything.echo({ message: 'n' + i }); return 'all';`);
    expect(answer.isError).toBe(true);
    expect(outcomeOf(answer).error).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/^The script failed: Error: Client bob: over its rate of 3\/s/),
      details: { client: 'bob', retry_after_ms: expect.any(Number), calls: expect.any(Number) },
    });
  });
});
