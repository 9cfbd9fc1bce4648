import * as z from 'zod';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commandFromTool } from '../../src/cli/command-from-tool.js';
import { defineTool } from '../../src/tool/define.js';
import { ToolError } from '../../src/core/errors.js';
import { ROOT } from '../helpers/cli.js';

const seen: unknown[] = [];
const demo = defineTool({
  name: 'demo_echo',
  group: 'demo',
  command: { id: 'demo echo', args: ['query', 'rest'], chars: { limit: 'n' }, examples: ['<%= config.bin %> demo echo hi'] },
  title: 'Echo',
  description: 'Echo the input back.\nUsed to test flag generation.',
  input: z.strictObject({
    query: z.string().describe('Text'),
    rest: z.array(z.string()).optional(),
    limit: z.int().min(1).default(20),
    ratio: z.number().optional(),
    verbose: z.boolean().default(false),
    color: z.boolean().default(true),
    sort: z.enum(['name', 'date']).default('name'),
    tags: z.array(z.string()).optional(),
    filter: z.strictObject({ key: z.string() }).optional(),
    fail: z.boolean().default(false),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input) {
    seen.push(input);
    if (input.fail) throw new ToolError('NOT_FOUND', 'Nothing here.', { hint: 'Look elsewhere.' });
    return input;
  },
});
const DemoCommand = commandFromTool(demo);

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  // oclif warns about unparsed commands when NODE_ENV=test; that is about the test runner, not mcpkit.
  const w = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  try {
    const result = await DemoCommand.run(argv, ROOT);
    return { result, stdout: out.join(''), stderr: err.join(''), exitCode: process.exitCode };
  } finally {
    o.mockRestore();
    e.mockRestore();
    w.mockRestore();
  }
}

afterEach(() => {
  process.exitCode = undefined;
  seen.length = 0;
});

describe('commandFromTool', () => {
  it('takes help text and examples from the definition', () => {
    expect(DemoCommand.summary).toBe('Echo the input back.');
    expect(DemoCommand.description).toBe('Used to test flag generation.');
    expect(DemoCommand.examples).toEqual(['<%= config.bin %> demo echo hi']);
    expect(Object.keys(DemoCommand.flags).sort()).toEqual(['color', 'fail', 'filter', 'limit', 'ratio', 'sort', 'tags', 'verbose']);
    expect(Object.keys(DemoCommand.args)).toEqual(['query', 'rest']);
    expect(DemoCommand.strict).toBe(false);
  });

  it('applies schema defaults when flags are absent', async () => {
    const { result } = await run(['hello', '--json']);
    expect(result).toEqual({ query: 'hello', limit: 20, verbose: false, color: true, sort: 'name', fail: false });
  });

  it('parses every kind of flag into typed input', async () => {
    const { result, stdout } = await run([
      'hello',
      'a',
      'b',
      '-n',
      '5',
      '--ratio',
      '0.5',
      '--verbose',
      '--no-color',
      '--sort',
      'date',
      '--tags',
      'x',
      '--tags',
      'y',
      '--filter',
      '{"key":"k"}',
      '--json',
    ]);
    const expected = {
      query: 'hello',
      rest: ['a', 'b'],
      limit: 5,
      ratio: 0.5,
      verbose: true,
      color: false,
      sort: 'date',
      tags: ['x', 'y'],
      filter: { key: 'k' },
      fail: false,
    };
    expect(result).toEqual(expected);
    expect(JSON.parse(stdout)).toEqual(expected);
  });

  it.each([
    [['hi', '--limit', 'ten'], /whole number/],
    [['hi', '--sort', 'size'], /Expected --sort=size to be one of: name, date/],
    [['hi', '--filter', '{bad'], /expects JSON/],
    [['hi', '--limit', '0'], /limit/],
    [[], /Missing 1 required arg/],
  ])('refuses %j as bad usage (exit 2) before running the tool', async (argv, message) => {
    const { stderr, exitCode } = await run(argv);
    expect(exitCode).toBe(2);
    expect(stderr).toMatch(message);
    expect(seen).toEqual([]);
  });

  it('prints a ToolError as Error [CODE]: message plus hint, exit 1', async () => {
    const { stderr, stdout, exitCode } = await run(['hi', '--fail']);
    expect(exitCode).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe('Error [NOT_FOUND]: Nothing here.\nHint: Look elsewhere.\n');
  });

  it('prints a ToolError as JSON on stdout with --json', async () => {
    const { stdout, exitCode } = await run(['hi', '--fail', '--json']);
    expect(exitCode).toBe(1);
    expect(JSON.parse(stdout)).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing here.', hint: 'Look elsewhere.' } });
  });

  it('renders human output without --json', async () => {
    const { stdout } = await run(['hi']);
    expect(stdout).toMatch(/^query\s+hi$/m);
    expect(stdout).toMatch(/^limit\s+20$/m);
  });
});
