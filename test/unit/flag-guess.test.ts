import { describe, expect, it } from 'vitest';
import { flagGuess } from '../../src/cli/base-command.js';

describe('flagGuess: the flag a mistyped one meant', () => {
  const flags = ['command', 'config', 'limit', 'json', 'help', 'header'];
  it.each([
    ['Nonexistent flag: --comand', '--command'],
    ['Nonexistent flag: --limt', '--limit'],
    ['Nonexistent flags: --heder, --x', '--header'],
    ['Nonexistent flag: --zzzzzz', undefined],
    ['Missing required flag name', undefined],
  ])('%j -> %s', (message, expected) => expect(flagGuess(message, flags)).toBe(expected));
});
