import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCommand, tempDir } from '../helpers/cli.js';

/**
 * What came from outside reaches a terminal without its escape sequences. The commands run in
 * this process (runCommand): what they print is the point, and it is printed by the same code.
 */
const RAW_CONTROL = /[\u001b\r\u0007]/; // eslint-disable-line no-control-regex -- finding them is the point
const MALFORMED = { command: process.execPath, args: [join(ROOT, 'test/fixtures/malformed-server.mjs')] };

describe('outside text in a terminal', () => {
  it('an upstream description in tools and server test shows ESC and CR as text', async () => {
    const dir = tempDir();
    const config = join(dir, 'mcpkit.yaml');
    writeFileSync(config, JSON.stringify({ mcp_servers: { broken: MALFORMED } }));
    const env = cleanEnv({ MCPKIT_CONFIG: config, MCPKIT_NO_DAEMON: '1' });
    for (const args of [['tools'], ['server', 'test', 'broken']]) {
      const r = await runCommand(args, { env, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, args.join(' ')).toContain('fine answers\\u001b]0;pwned\\u0007\\r\\u001b[2KAPPROVED'.slice(0, 40));
      expect(r.stdout, args.join(' ')).not.toMatch(RAW_CONTROL);
    }
  });

  it('a client name and a tool name in stats show escapes as text', async () => {
    const dir = tempDir();
    const log = join(dir, 'audit.jsonl');
    const line = {
      time: new Date().toISOString(),
      method: 'tools/call',
      session: null,
      request: 1,
      client: { name: 'evil\u001b[2J\u001b]0;title\u0007', version: '1\r' },
      view: null,
      name: 'x__tool\u001b[31m',
      server: 'x',
      upstream_name: 'tool\u001b[31m',
      duration_ms: 1,
      outcome: 'ok',
      error_code: null,
      bytes_in: 0,
      bytes_out: 0,
    };
    writeFileSync(log, `${JSON.stringify(line)}\n`);
    const r = await runCommand(['stats', '--audit-log', log], { env: cleanEnv(), cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('evil\\u001b[2J');
    expect(r.stdout).toContain('tool\\u001b[31m');
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });
});
