import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCommand } from '../helpers/cli.js';
import { serveStdioInProcess } from '../helpers/in-process.js';
import { SERVERS, writeConfig } from '../helpers/upstreams.js';

/** Composite tools and hooks from the terminal: added, checked, run, listed, taken away; never offered over MCP. */
describe('composite and hooks commands', () => {
  it('composite add checks each step, writes a composite that runs; list, show and remove', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything } });
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const run = (...args: string[]) => runCommand(args, { env });
    const before = readFileSync(file, 'utf8');
    for (const [args, code, words] of [
      [['--step', 'everything.ecko'], 1, 'Server "everything" has no tool named "ecko"'],
      [['--step', 'ghost.echo'], 1, '"ghost.echo" names the server "ghost", which is not in mcp_servers'],
      [['--step', 'serch'], 1, 'Did you mean search?'],
      [['--step', 'a=everything.echo', '--args', 'a={"message":"{steps.b.result}"}'], 2, 'has not run before it'],
    ] as const) {
      const r = await run('composite', 'add', 'sum-then-echo', ...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
      expect(r.stderr).toContain(words);
      expect(readFileSync(file, 'utf8'), 'a refused edit leaves the file as it was').toBe(before);
    }
    const added = await run(
      'composite',
      'add',
      'sum-then-echo',
      '--description',
      'Adds, then says the sum',
      '--input',
      'a:number',
      '--input',
      'b:number',
      '--step',
      'sum=everything.get-sum',
      '--args',
      'sum={"a":"{inputs.a}","b":"{inputs.b}"}',
      '--step',
      'say=everything.echo',
      '--args',
      'say={"message":"the sum: {steps.sum.result}"}',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('✓ Added composite tool sum-then-echo (sum=everything.get-sum, say=everything.echo)');
    expect(parse(readFileSync(file, 'utf8')).composite_tools['sum-then-echo']).toMatchObject({
      inputs: { required: ['a', 'b'] },
      chain: [
        { name: 'sum', tool: 'everything.get-sum' },
        { name: 'say', tool: 'everything.echo' },
      ],
    });
    const validated = await run('config', 'validate');
    expect(validated.code, validated.stderr).toBe(0);
    const called = await run('call', 'sum-then-echo', 'a=2', 'b=3', '--json');
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('the sum: The sum of 2 and 3 is 5.');

    expect((await run('composite', 'add', 'sum-then-echo', '--step', 'everything.echo')).stderr).toContain(
      'A composite tool named "sum-then-echo" already exists.',
    );
    expect(JSON.parse((await run('composite', 'list', '--json')).stdout)).toEqual({
      composites: [{ name: 'sum-then-echo', runs: 'chain', steps: ['sum=everything.get-sum', 'say=everything.echo'], description: 'Adds, then says the sum' }],
    });
    expect(JSON.parse((await run('composite', 'show', 'sum-then-echo', '--json')).stdout).entry.chain).toHaveLength(2);
    expect((await run('composite', 'show', 'sum-then-ech')).stderr).toContain('Did you mean sum-then-echo?');
    expect((await run('composite', 'rm', 'sum-then-echo')).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).composite_tools).toBeUndefined();
  }, 60_000);

  it('hooks set loads the module before writing; the hook runs on the next call; show and clear; no hook or composite edit is offered over MCP', async () => {
    const file = writeConfig({ mcp_servers: { everything: SERVERS.everything }, tool_views: { r: { servers: ['everything'] } } });
    const dir = dirname(file);
    const env = cleanEnv({ MCPKIT_CONFIG: file });
    const run = (...args: string[]) => runCommand(args, { env });
    const before = readFileSync(file, 'utf8');
    writeFileSync(join(dir, 'no-function.mjs'), 'export const nothing = 1;\n');
    writeFileSync(join(dir, 'broken.mjs'), 'export function pre_call( {\n');
    for (const [args, words] of [
      [['--pre-call', './missing.mjs'], 'Cannot load hook module'],
      [['--pre-call', './no-function.mjs'], 'has no pre_call function'],
      [['--post-call', './broken.mjs'], 'Cannot load hook module'],
      [['--view', 'nope', '--pre-call', './no-function.mjs'], 'has no pre_call function'],
    ] as const) {
      const r = await run('hooks', 'set', ...args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(words);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
    expect((await run('hooks', 'set')).code).toBe(2);
    writeFileSync(join(dir, 'shout.mjs'), 'export function pre_call(args) { return { args: { ...args, message: String(args.message).toUpperCase() } }; }\n');
    const set = await run('hooks', 'set', '--pre-call', './shout.mjs');
    expect(set.code, set.stderr).toBe(0);
    expect((await run('call', 'echo', 'message=quiet')).stdout).toContain('Echo: QUIET');
    expect((await run('hooks', 'set', '--view', 'r', '--post-call', './shout.mjs')).stderr).toContain('has no post_call function');
    writeFileSync(join(dir, 'post.mjs'), 'export function post_call() {}\n');
    expect((await run('hooks', 'set', '--view', 'r', '--post-call', './post.mjs')).code).toBe(0);
    expect(parse(readFileSync(file, 'utf8')).tool_views.r.hooks).toEqual({ post_call: './post.mjs' });
    expect(JSON.parse((await run('hooks', 'show', '--json')).stdout)).toEqual({
      hooks: [
        { where: 'global', pre_call: './shout.mjs', post_call: null },
        { where: 'view r', pre_call: null, post_call: './post.mjs' },
      ],
    });

    const { client } = await serveStdioInProcess(file);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('config_validate');
      for (const terminalOnly of ['composite_add', 'composite_remove', 'hooks_set', 'hooks_clear', 'hooks_show', 'composite_list'])
        expect(names).not.toContain(terminalOnly);
    } finally {
      await client.close();
    }

    expect((await run('hooks', 'clear', '--view', 'r')).stdout).toContain('view r: cleared post_call');
    expect(parse(readFileSync(file, 'utf8')).tool_views.r.hooks).toBeUndefined();
    expect((await run('hooks', 'clear', '--pre-call')).stdout).toContain('global: cleared pre_call');
    expect((await run('call', 'echo', 'message=quiet')).stdout).toContain('Echo: quiet');
  }, 60_000);
});
