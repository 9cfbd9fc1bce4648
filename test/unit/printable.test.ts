import { describe, expect, it } from 'vitest';
import { printable, printableLines, printableText, terminalSafe } from '../../src/core/printable.js';

describe('printable', () => {
  it.each([
    ['plain.txt', 'plain.txt'],
    ['héllo wörld.md', 'héllo wörld.md'],
    ['evil\nname:1:forged', 'evil\\nname:1:forged'],
    ['red\u001b[31mtext', 'red\\u001b[31mtext'],
    ['tab\there', 'tab\\there'],
    ['cr\rover', 'cr\\rover'],
    ['bell\u0007 del\u007f c1\u009b', 'bell\\u0007 del\\u007f c1\\u009b'],
    ['txt.\u202eexe', 'txt.\\u202eexe'],
  ])('%j', (text, expected) => {
    expect(printable(text)).toBe(expected);
  });

  it('keeps the line breaks of a message, escaping the rest', () => {
    expect(printableLines('line one\nline \u001b[2Jtwo')).toBe('line one\nline \\u001b[2Jtwo');
  });
});

describe('terminalSafe: every string of a result, before the terminal renders it', () => {
  it('escapes escape sequences and carriage returns in nested strings and keys, keeps lines and tabs', () => {
    const result = {
      tools: [{ name: 'echo\u001b]0;pwned\u0007', description: 'Looks fine\r\u001b[2KAPPROVED' }],
      'key\u001b[31m': 'a\tb\nc',
    };
    expect(terminalSafe(result)).toEqual({
      tools: [{ name: 'echo\\u001b]0;pwned\\u0007', description: 'Looks fine\\r\\u001b[2KAPPROVED' }],
      'key\\u001b[31m': 'a\tb\nc',
    });
  });

  it('returns a value without such characters as it is (no copy)', () => {
    const clean = { a: ['x', { b: 'y' }], n: 1, nothing: null };
    expect(terminalSafe(clean)).toBe(clean);
  });

  it.each([
    ['an ESC', 'a\u001bb', 'a\\u001bb'],
    ['a carriage return', 'a\rb', 'a\\rb'],
    ['a bidi override', 'a\u202eb', 'a\\u202eb'],
    ['a newline and a tab stay', 'a\nb\tc', 'a\nb\tc'],
  ])('printableText: %s', (_what, text, expected) => expect(printableText(text)).toBe(expected));
});
