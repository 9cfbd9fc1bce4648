import { describe, expect, it } from 'vitest';
import { hoistGlobalFlags } from '../../src/cli/global-flags.js';
import { flagGuess, flagNames } from '../../src/cli/base-command.js';

describe('global flags before the command go after it', () => {
  it.each([
    [
      ['--config', 'f.yaml', 'view', 'create', 'x'],
      ['view', 'create', 'x', '--config', 'f.yaml'],
    ],
    [
      ['--config=f.yaml', 'view', 'list'],
      ['view', 'list', '--config=f.yaml'],
    ],
    [
      ['--json', 'config', 'show'],
      ['config', 'show', '--json'],
    ],
    [
      ['--json', '--config', 'f', 'tools'],
      ['tools', '--json', '--config', 'f'],
    ],
    [
      ['--config', 'f', 'filter', 'run', '--include', 'a', '--', 'node', 's.js', '--json'],
      ['filter', 'run', '--include', 'a', '--config', 'f', '--', 'node', 's.js', '--json'],
    ],
    [
      ['view', 'list', '--config', 'f'],
      ['view', 'list', '--config', 'f'],
    ],
    [
      ['--jq', '.[].name', 'view', 'list'],
      ['view', 'list', '--jq', '.[].name'],
    ],
    [
      ['--jq=.path', 'config', 'path'],
      ['config', 'path', '--jq=.path'],
    ],
    [['--help'], ['--help']],
    [['--version'], ['--version']],
    [['--config'], ['--config']],
    [[], []],
  ])('%j -> %j', (argv, want) => {
    expect(hoistGlobalFlags(argv)).toEqual(want);
  });
});

describe('a mistyped shared flag is guessed too', () => {
  it.each([
    ['Nonexistent flag: --jsn', '--json'],
    ['Nonexistent flag: --confg', '--config'],
    ['Nonexistent flag: --verbos', '--verbose'],
  ])('%s -> %s', (message, want) => {
    const command = { flags: { verbose: {} }, baseFlags: { config: {} }, enableJsonFlag: true };
    expect(flagGuess(message, [...flagNames(command), 'help'])).toBe(want);
  });
});
