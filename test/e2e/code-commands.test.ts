import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCommand, tempDir } from '../helpers/cli.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/** Code mode from a terminal: mcpkit code run and code types, against server-everything. */
let config: string;
let dir: string;
const env = cleanEnv({ MCPKIT_NO_DAEMON: '1' });

beforeAll(() => {
  config = writeConfig({ mcp_servers: { everything: SERVERS.everything }, tool_views: { ev: { servers: ['everything'], code: { max_calls: 3 } } } });
  dir = tempDir();
});

const script = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('mcpkit code run', () => {
  it('prints what the script returns, what it logs on stderr, and exits 0', async () => {
    const file = script('chain.ts', "const sum: string = await tools.everything['get-sum']({ a: 40, b: 2 });\nconsole.log('summed');\nreturn { sum };\n");
    const ran = await runCommand(['code', 'run', file, '--config', config], { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ sum: 'The sum of 40 and 2 is 42.' });
    expect(ran.stderr).toContain('summed');
    const json = await runCommand(['code', 'run', file, '--config', config, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ view: null, result: { sum: 'The sum of 40 and 2 is 42.' }, logs: ['summed'], calls: 1 });
  });

  it('reads the script from stdin with -', async () => {
    const ran = await runCommand(['code', 'run', '-', '--config', config], { env, input: "return await tools.everything.echo({ message: 'hi' })" });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout.trim()).toBe('Echo: hi');
  });

  it("exits 1 with the script's error, and a view's limits name their setting", async () => {
    const failing = await runCommand(['code', 'run', script('fail.js', "throw new Error('no way')"), '--config', config], { env });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/Error \[SCRIPT_ERROR\]: The script failed: Error: no way/);
    const many = script('many.js', "for (let i = 0; i < 10; i++) await tools.everything.echo({ message: 'x' });");
    const limited = await runCommand(['code', 'run', many, '--view', 'ev', '--config', config], { env });
    expect(limited.code).toBe(1);
    expect(limited.stderr).toMatch(/more than 3 tool calls \(tool_views\.ev\.code\.max_calls\)/);
    const slow = await runCommand(['code', 'run', script('loop.js', 'while (true) {}'), '--timeout-ms', '500', '--config', config], { env });
    expect(slow.code).toBe(1);
    expect(slow.stderr).toMatch(/ran past its 500 ms \(--timeout-ms\)/);
    const missing = await runCommand(['code', 'run', join(dir, 'none.js'), '--config', config], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read the script/);
  });
});

describe('mcpkit code types', () => {
  it("prints the view's tools as TypeScript declarations", async () => {
    const ran = await runCommand(['code', 'types', '--view', 'ev', '--config', config], { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^\/\/ A tool without a result type gives its text[^\n]*\ndeclare const tools: \{\n {2}everything: \{/);
    expect(ran.stdout).toMatch(/"get-sum"\(args: \{[\s\S]*?a: number;[\s\S]*?\}\): Promise<unknown>;/);
  });
});
