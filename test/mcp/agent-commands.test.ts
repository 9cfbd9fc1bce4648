import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { serveHttpInProcess } from '../helpers/in-process.js';

/**
 * An agent cannot make mcpkit run a command without a person: over MCP a
 * stdio server added, imported or installed is put to the person first (elicitation, both eras),
 * and refused where the client cannot ask; the config stays byte for byte as it was.
 */
const TOKEN = 'host-tools-token-4c1d';

async function setUp(extra = '') {
  const dir = tempDir();
  const config = join(dir, 'mcpkit.yaml');
  writeFileSync(config, `serve:\n  token: ${TOKEN}\n${extra}`);
  const served = await serveHttpInProcess(config);
  const marker = join(dir, 'pwned');
  return { dir, config, served, marker, text: readFileSync(config, 'utf8') };
}

type Answer = 'accept' | 'decline' | 'none';

async function agent(url: string, answer: Answer, era: 'legacy' | 'modern' = 'legacy') {
  const asked: string[] = [];
  const client = new Client(
    { name: 'agent', version: '1' },
    {
      ...(answer === 'none' ? {} : { capabilities: { elicitation: { form: {} } } }),
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
    },
  );
  if (answer !== 'none') {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    return {
      isError: result.isError === true,
      body: JSON.parse(result.content[0]!.text) as Record<string, unknown> & { error?: { code: string; message: string; hint?: string } },
    };
  };
  return { client, asked, call };
}

const evil = (marker: string) => ({ name: 'evil', command: 'sh', args: ['-c', `touch ${marker}`] });

describe('server_add of a stdio server over MCP', () => {
  it('is refused where the client cannot ask, naming the terminal command, and changes nothing', async () => {
    const { served, config, text, marker } = await setUp();
    const { client, call } = await agent(served.url, 'none');
    try {
      const r = await call('server_add', evil(marker));
      expect(r.isError).toBe(true);
      expect(r.body.error!.code).toBe('FORBIDDEN');
      expect(r.body.error!.message).toMatch(/needs a person's approval/);
      expect(r.body.error!.hint).toContain(`mcpkit server add evil --command sh --arg -c --arg 'touch ${marker}'`);
      expect(r.body.error!.hint).not.toContain('--no-force');
      expect(readFileSync(config, 'utf8')).toBe(text);
      // And so nothing can start it.
      expect((await call('server_test', { name: 'evil' })).body.error!.code).toBe('NOT_FOUND');
      expect(existsSync(marker)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it.each(['legacy', 'modern'] as const)('%s: asks the person with the exact command line; declined, nothing changes', async (era) => {
    const { served, config, text, marker } = await setUp();
    const { client, call, asked } = await agent(served.url, 'decline', era);
    try {
      const r = await call('server_add', { ...evil(marker), env: { NODE_OPTIONS: '--require /tmp/x.js' } });
      expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('declined') });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain(`NODE_OPTIONS='--require /tmp/x.js' sh -c 'touch ${marker}'`);
      expect(readFileSync(config, 'utf8')).toBe(text);
      expect(existsSync(marker)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it.each(['legacy', 'modern'] as const)("%s: approved, the server is added and marked as an agent's; testing it asks again", async (era) => {
    const { served, config, marker } = await setUp();
    const { client, call, asked } = await agent(served.url, 'accept', era);
    try {
      // Without a box, on purpose: the command's file is outside any box.
      const added = await call('server_add', { ...evil(marker), sandbox: false });
      expect(added.isError).toBe(false);
      expect(readFileSync(config, 'utf8')).toMatch(/added_by: agent/);
      expect(asked[0]).toContain('without a box');
      await call('server_test', { name: 'evil' }); // sh is no MCP server: the test fails, but the command ran
      expect(asked).toHaveLength(2);
      expect(asked[1]).toContain('which an agent added');
      expect(existsSync(marker)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a control line in an argument is shown escaped, so the form cannot be forged', async () => {
    const { served } = await setUp();
    const { client, call, asked } = await agent(served.url, 'decline');
    try {
      await call('server_add', { name: 'x', command: 'node', args: ['ok\n  harmless', '\u001b[2Jcleared'] });
      expect(asked[0]).toContain("'ok\\n  harmless' '\\u001b[2Jcleared'");
      expect(asked[0]).not.toMatch(/[\n]\s+harmless/);
    } finally {
      await client.close();
    }
  });
});

describe('where an agent adds a stdio server', () => {
  it('it runs in a box with the network by default, where bubblewrap can make one, and the person is told', async () => {
    const { hostFacts } = await import('../../src/proxy/sandbox/host-facts.js');
    const { served, config } = await setUp();
    const { client, call, asked } = await agent(served.url, 'accept');
    try {
      expect((await call('server_add', { name: 'boxed', command: 'node', args: ['server.js'] })).isError).toBe(false);
      if (hostFacts(process.env).bwrap) {
        expect(readFileSync(config, 'utf8')).toMatch(/sandbox:\s*\n\s+network: true/);
        expect(asked[0]).toContain('in a box (bubblewrap: none of your files, the network)');
      } else {
        expect(readFileSync(config, 'utf8')).not.toContain('sandbox');
        expect(asked[0]).toContain('without a box');
      }
    } finally {
      await client.close();
    }
  });
});

describe('serve.agent_commands', () => {
  it('allow: added without asking; deny: refused without asking', async () => {
    const allowed = await setUp('  agent_commands: allow\n');
    const a = await agent(allowed.served.url, 'decline');
    try {
      expect((await a.call('server_add', evil(allowed.marker))).isError).toBe(false);
      expect(a.asked).toEqual([]);
    } finally {
      await a.client.close();
    }
    const denied = await setUp('  agent_commands: deny\n');
    const d = await agent(denied.served.url, 'accept');
    try {
      const r = await d.call('server_add', evil(denied.marker));
      expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('serve.agent_commands: deny') });
      expect(d.asked).toEqual([]);
      expect(readFileSync(denied.config, 'utf8')).toBe(denied.text);
    } finally {
      await d.client.close();
    }
  });
});

describe('server_import and registry_add over MCP', () => {
  it('server_import asks with every command line it would add', async () => {
    const { served, dir, config, text } = await setUp();
    const file = join(dir, 'claude.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { one: { command: 'npx', args: ['-y', 'pkg-one'] }, two: { command: 'uvx', args: ['pkg-two'] } } }));
    const { client, call, asked } = await agent(served.url, 'decline');
    try {
      expect((await call('server_import', { file })).body.error!.code).toBe('FORBIDDEN');
      expect(asked[0]).toContain('npx -y pkg-one');
      expect(asked[0]).toContain('uvx pkg-two');
      expect(readFileSync(config, 'utf8')).toBe(text);
    } finally {
      await client.close();
    }
  });

  it("server_import of a file that is not JSON never quotes the file's content", async () => {
    const { served, dir } = await setUp();
    const secret = join(dir, 'shadow');
    writeFileSync(secret, 'root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\n');
    const { client, call } = await agent(served.url, 'accept');
    try {
      const r = await call('server_import', { file: secret });
      expect(r.body.error!.message).toContain('not valid JSON');
      expect(JSON.stringify(r.body)).not.toContain('root:');
      expect(JSON.stringify(r.body)).not.toContain('hashhash');
    } finally {
      await client.close();
    }
  });
});
