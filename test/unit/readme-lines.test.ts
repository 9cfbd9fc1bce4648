import { describe, expect, it } from 'vitest';
import { readmeSection, shellLines } from '../helpers/readme-lines.js';

describe('shellLines', () => {
  const table: [string, string, ReturnType<typeof shellLines>][] = [
    ['a line and its comment', '```sh\nmcpkit clients   # who\n```', [{ command: 'mcpkit clients', comment: 'who' }]],
    ['a # inside a command is not a comment', "```sh\nprintf '%s#x' a > f\n```", [{ command: "printf '%s#x' a > f", comment: '' }]],
    [
      'an illustrative line keeps its reason',
      '```sh\nmcpkit secret set x   # illustrative: needs a keyring\n```',
      [{ command: 'mcpkit secret set x', comment: 'illustrative: needs a keyring', illustrative: 'needs a keyring' }],
    ],
    ['other blocks and comment lines are not lines', '```yaml\na: 1\n```\n```sh\n# a note\n\nls\n```\n```console\n$ x\n```', [{ command: 'ls', comment: '' }]],
  ];
  it.each(table)('%s', (_, text, expected) => expect(shellLines(text)).toEqual(expected));
});

describe('readmeSection', () => {
  it('ends at the next top-level heading, not at a ###', () => {
    const text = '# T\n## One\na\n### sub\nb\n## Two\nc\n';
    expect(readmeSection('One', text)).toBe('\n## One\na\n### sub\nb');
    expect(() => readmeSection('Three', text)).toThrow('no section "## Three"');
  });
});
