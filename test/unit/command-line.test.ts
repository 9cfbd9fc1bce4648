import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { commandLineFor, flagName, shellQuote } from '../../src/tool/command-line.js';
import { defineTool, READ_ONLY } from '../../src/tool/define.js';

const tool = defineTool({
  name: 'demo_list',
  group: 'demo',
  command: { id: 'demo list', args: ['topic'], flagNames: { headers: 'header' }, examples: ['mcpkit demo list x'] },
  title: 'demo',
  description: 'demo',
  input: z.strictObject({
    topic: z.string().optional(),
    cursor: z.string().optional(),
    limit: z.int().default(30),
    latest_only: z.boolean().default(true),
    verbose: z.boolean().default(false),
    headers: z.array(z.string()).optional(),
  }),
  annotations: READ_ONLY,
  run: async () => null,
});

describe('commandLineFor', () => {
  it.each([
    [{}, 'mcpkit demo list'],
    [{ limit: 30, latest_only: true, verbose: false }, 'mcpkit demo list'],
    [{ cursor: 'abc', limit: 3 }, 'mcpkit demo list --cursor abc --limit 3'],
    [{ latest_only: false, verbose: true }, 'mcpkit demo list --no-latest-only --verbose'],
    [{ topic: 'two words', headers: ['A=1', "it's"] }, `mcpkit demo list 'two words' --header A=1 --header 'it'\\''s'`],
  ])('%j -> %s', (input, line) => {
    expect(commandLineFor(tool, input as never)).toBe(line);
  });

  it('names flags as the command does', () => {
    expect(flagName(tool.command, 'headers')).toBe('header');
    expect(flagName(tool.command, 'latest_only')).toBe('latest-only');
    expect(shellQuote('a b')).toBe("'a b'");
  });
});
