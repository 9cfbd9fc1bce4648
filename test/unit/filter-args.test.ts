import { describe, expect, it } from 'vitest';
import { parseFilterArgs } from '../../src/cli/args/filter-args.js';

describe('parseFilterArgs', () => {
  it.each([
    [
      ['--exclude', 'browser_close', '--include', 'browser_*', '--', 'npx', '@playwright/mcp'],
      [{ exclude: 'browser_close' }, { include: 'browser_*' }],
      ['npx', '@playwright/mcp'],
      [],
    ],
    [
      ['--include=a*', '--exclude=a_b', '--json', '--', 'cmd', '--include', 'x'],
      [{ include: 'a*' }, { exclude: 'a_b' }],
      ['cmd', '--include', 'x'],
      ['--json'],
    ],
    [['--url', 'https://x', '--include', 'a'], [{ include: 'a' }], [], ['--url', 'https://x']],
    [[], [], [], []],
  ])('%j', (argv, rules, command, rest) => {
    expect(parseFilterArgs(argv)).toEqual({ rules, command, rest });
  });

  // filter run: the command may come without "--" (the MCP Inspector's CLI drops a second one).
  it.each([
    [['--include', 'read_*', 'npx', '-y', 'pkg', '--include', 'x'], [{ include: 'read_*' }], ['npx', '-y', 'pkg', '--include', 'x'], []],
    [['--config', 'c.yaml', '--url', 'https://x', '--header', 'A=1'], [], [], ['--config', 'c.yaml', '--url', 'https://x', '--header', 'A=1']],
    [['--config', 'c.yaml', 'node', 'server.js'], [], ['node', 'server.js'], ['--config', 'c.yaml']],
    [['--exclude=x', '--', 'npx', 'pkg'], [{ exclude: 'x' }], ['npx', 'pkg'], []],
  ])('without --: %j', (argv, rules, command, rest) => {
    expect(parseFilterArgs(argv, { valueFlags: ['--url', '--header', '--config'] })).toEqual({ rules, command, rest });
  });

  it.each([
    [['--include browser_*', '--', 'x'], /quoted together/, /--include "browser_\*"/],
    [['--exclude'], /needs a pattern/, undefined],
    [['--include', '--', 'x'], /needs a pattern/, undefined],
    [['--include', '{a,b'], /Unbalanced/, undefined],
  ])('refuses %j', (argv, message, hint) => {
    let error: { message: string; hint?: string; code?: string } | undefined;
    try {
      parseFilterArgs(argv);
    } catch (e) {
      error = e as typeof error;
    }
    expect(error?.code).toBe('INVALID_INPUT');
    expect(error?.message).toMatch(message);
    if (hint) expect(error?.hint).toMatch(hint);
  });
});
