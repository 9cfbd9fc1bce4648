import { describe, expect, it } from 'vitest';
import { printable, printableLines } from '../../src/core/printable.js';

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
