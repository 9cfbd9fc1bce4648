import { describe, expect, it } from 'vitest';
import { inAgentWords } from '../../src/tool/mcp-shape.js';

describe('descriptions over MCP name fields as arguments, not flags', () => {
  const say = inAgentWords({ command: { id: 'x y', examples: [], flagNames: { args: 'arg' } } }, ['regex', 'ignore_case', 'args', 'all']);
  it.each([
    ['a regex with --regex', 'a regex with "regex"'],
    ['--ignore-case and --all', '"ignore_case" and "all"'],
    ['repeat --arg', 'repeat "args"'], // a flag named apart from its field
    ['serve without --view', 'serve without --view'], // another command's flag stays
    ['--regexes', '--regexes'], // a longer word is not the flag
    ['a--regex', 'a--regex'],
    ['rg -e and --', 'rg -e and --'],
  ])('%j', (text, expected) => expect(say(text)).toBe(expected));
});
