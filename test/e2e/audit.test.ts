import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/audit-log.js';
import type { Stats } from '../../src/audit/stats.js';
import { BIN, cleanEnv, spawnTracked, stopChild, tempDir, runCommand } from '../helpers/cli.js';
import { serveHttpAsCli, serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, waitFor, writeConfig } from '../helpers/upstreams.js';

/** serve's audit log, written by real calls of the SDK client, and `mcpkit stats` over it. */

const SECRET_WORDS = 'the-argument-value-nobody-should-read';
const entries = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEntry);

describe.concurrent('the audit log', () => {
  it('has a line per tools/call, prompts/get and resources/read, for each outcome, without argument values; stats adds them up', async () => {
    const folder = tempDir();
    const audit = join(folder, 'audit.jsonl');
    const config = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const client = new Client({ name: 'audit-e2e', version: '3.1.4' });
    await serveStdioInProcess({ argv: ['--config', config, '--exposure', 'direct', '--audit-log', audit], client });
    try {
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'everything__echo', arguments: { message: SECRET_WORDS } }); // the first ordinary, then the hot path
      const bad = await client.callTool({ name: 'everything__echo', arguments: { message: 42 } }); // refused by the argument check: a tool error
      expect(bad.isError).toBe(true);
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
      await client.callTool({ name: 'config_path', arguments: {} });
      const prompt = (await client.listPrompts()).prompts.find((p) => !p.arguments?.some((a) => a.required))!;
      await client.getPrompt({ name: prompt.name });
      const resource = (await client.listResources()).resources[0]!;
      await client.readResource({ uri: resource.uri });
    } finally {
      await client.close();
    }
    expect(await waitFor(() => entries(audit).length === 8, 5000)).toBe(true);
    expect(statSync(audit).mode & 0o777).toBe(0o600);
    expect(readFileSync(audit, 'utf8')).not.toContain(SECRET_WORDS);
    const lines = entries(audit);
    expect(lines.map((l) => [l.method, l.name, l.outcome, l.error_code])).toEqual([
      ['tools/call', 'everything__echo', 'ok', null],
      ['tools/call', 'everything__echo', 'ok', null],
      ['tools/call', 'everything__echo', 'ok', null],
      ['tools/call', 'everything__echo', 'tool_error', 'INVALID_INPUT'],
      ['tools/call', 'no_such_tool', 'protocol_error', -32602],
      ['tools/call', 'config_path', 'ok', null],
      ['prompts/get', lines[6]!.name, 'ok', null],
      ['resources/read', lines[7]!.name, 'ok', null],
    ]);
    for (const line of lines) {
      // Who: over stdio, the person who started serve; which software: what the client said it is.
      expect(line.client).toBe('stdio');
      expect(line.client_info).toEqual({ name: 'audit-e2e', version: '3.1.4' });
      expect(line.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(line.time)).not.toBeNaN();
      expect(line).not.toHaveProperty('arguments');
    }
    expect(lines[0]).toMatchObject({ server: 'everything', upstream_name: 'echo', request: expect.anything() });
    expect(lines[0]!.bytes_in).toBe(JSON.stringify({ message: SECRET_WORDS }).length);
    expect(lines[0]!.bytes_out).toBeGreaterThan(0);
    expect(lines[5]).toMatchObject({ server: 'mcpkit', upstream_name: 'config_path' });

    const stats = await runCommand(['stats', '--audit-log', audit, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const parsed = JSON.parse(stats.stdout) as Stats;
    expect(parsed).toMatchObject({ calls: 8, errors: 2, skipped: 0 });
    expect(parsed.by_tool, JSON.stringify(parsed.by_tool)).toContainEqual(expect.objectContaining({ key: 'echo (everything)', calls: 4, errors: 1 }));
    expect(parsed.by_client).toEqual([expect.objectContaining({ key: 'stdio', calls: 8, errors: 2 })]);
    expect(parsed.by_agent).toEqual([expect.objectContaining({ key: 'audit-e2e 3.1.4', calls: 8, errors: 2 })]);
    const table = await runCommand(['stats', '--audit-log', audit]);
    expect(table.stdout).toMatch(/echo \(everything\)\s+4\s+1/);
  }, 60_000);

  it('names the session of each HTTP call, hot path included; stats reads serve.audit_log of the config', async () => {
    const config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, serve: { audit_log: 'calls.jsonl', exposure: 'direct' } });
    // serve --http of the config in this process: what is asked is the log its calls write.
    const served = await serveHttpAsCli(config);
    const client = new Client({ name: 'audit-http', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${served.url}/mcp`));
    await client.connect(transport);
    for (let i = 0; i < 4; i++) await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } });
    await client.close();
    await served.close();
    const audit = join(config, '..', 'calls.jsonl');
    const lines = entries(audit);
    expect(lines).toHaveLength(4);
    // An open server: the caller is anonymous, on the hot path as on the ordinary one.
    for (const line of lines)
      expect(line).toMatchObject({
        session: transport.sessionId ?? expect.any(String),
        client: 'anonymous',
        client_info: { name: 'audit-http', version: '1' },
      });
    expect(new Set(lines.map((l) => l.session)).size).toBe(1);
    // The same result counts the same on the ordinary path (the first call) and the hot path, which
    // counts it from the response it serialized: the result's own JSON.
    expect(lines.map((l) => l.bytes_out)).toEqual(Array(4).fill(JSON.stringify({ content: [{ type: 'text', text: 'Echo: hi' }] }).length));
    const stats = JSON.parse((await runCommand(['stats', '--config', config, '--json'])).stdout) as Stats;
    expect(stats.calls).toBe(4);
  }, 60_000);

  it('refuses a bad --since and a missing log, saying what to do', async () => {
    const folder = tempDir();
    const since = await runCommand(['stats', '--audit-log', join(folder, 'x'), '--since', 'yesterday']);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/--since takes a time such as 90s/);
    const missing = await runCommand(['stats', '--audit-log', join(folder, 'none.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
    const unset = await runCommand(['stats', '--config', writeConfig({})]);
    expect(unset.stderr).toMatch(/no serve.audit_log/);
  });

  it('with nothing naming a log, stats reads the usual place, which serve --audit-log makes', async () => {
    const state = join(tempDir(), 'state');
    const env = cleanEnv({ XDG_STATE_HOME: state, MCPKIT_CONFIG: writeConfig({}) });
    const none = await runCommand(['stats'], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`there is none at ${join(state, 'mcpkit', 'audit.jsonl')}`);
    // serve makes the log's folder (private) when it is missing, then the log: stats finds it.
    const child = spawnTracked(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--audit-log', join(state, 'mcpkit', 'audit.jsonl')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    expect(await waitFor(() => /listening on/.test(err), 20_000), err).toBe(true);
    await stopChild(child);
    expect(statSync(join(state, 'mcpkit')).mode & 0o777).toBe(0o700);
    const read = await runCommand(['stats', '--json'], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ calls: 0 });
  }, 30_000);
});
