import { describe, expect, it } from 'vitest';
import { canonicalAnswer } from '../../src/core/canonical-answer.js';

/**
 * An upstream's answer line is passed on as it came (its id swapped for the client's) only when
 * every JSON reader reads it as JSON.parse did; any other line is serialized again. Each hostile
 * shape below is one a naive passthrough would send on as it came.
 */
const ID = '"mcpkit-7"';
const answerOf = (line: string) => JSON.parse(line) as { id: string; result: object };

const passed: { name: string; line: string; text: string; result: string }[] = [
  {
    name: "an SDK server's answer (result first)",
    line: `{"result":{"content":[{"type":"text","text":"Echo: m1"}]},"jsonrpc":"2.0","id":${ID}}`,
    text: '{"result":{"content":[{"type":"text","text":"Echo: m1"}]},"jsonrpc":"2.0","id":5}',
    result: '{"content":[{"type":"text","text":"Echo: m1"}]}',
  },
  {
    name: 'the id first, spaced as Python writes it',
    line: `{"jsonrpc": "2.0", "id": ${ID}, "result": {"content": [{"type": "text", "text": "x"}], "isError": false}}`,
    text: '{"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "x"}], "isError": false}}',
    result: '{"content": [{"type": "text", "text": "x"}], "isError": false}',
  },
  {
    name: 'text with escaped quotes, backslashes and braces',
    line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[{"type":"text","text":"a \\"quoted\\" {\\\\} \\\\"}],"structuredContent":{"n":-1.5,"ok":true,"z":null}}}`,
    text: '{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a \\"quoted\\" {\\\\} \\\\"}],"structuredContent":{"n":-1.5,"ok":true,"z":null}}}',
    result: '{"content":[{"type":"text","text":"a \\"quoted\\" {\\\\} \\\\"}],"structuredContent":{"n":-1.5,"ok":true,"z":null}}',
  },
  {
    name: 'our id inside the result (the envelope id is the one replaced)',
    line: `{"result":{"content":[],"structuredContent":{"ref":${ID},"id":${ID}}},"jsonrpc":"2.0","id":${ID}}`,
    text: `{"result":{"content":[],"structuredContent":{"ref":${ID},"id":${ID}}},"jsonrpc":"2.0","id":5}`,
    result: `{"content":[],"structuredContent":{"ref":${ID},"id":${ID}}}`,
  },
];

const refused: { name: string; line: string }[] = [
  { name: 'a duplicate id (readers differ on which wins)', line: `{"jsonrpc":"2.0","id":"mcpkit-8","id":${ID},"result":{"content":[]}}` },
  { name: 'a duplicate key in the result', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"isError":false,"isError":true}}` },
  { name: 'a duplicate key deep in the content', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[{"type":"text","text":"a","text":"b"}]}}` },
  { name: 'a duplicate result', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[]},"result":{"content":[{"type":"text","text":"b"}]}}` },
  { name: 'an integer JSON.parse rounds', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"structuredContent":{"n":12345678901234567890}}}` },
  {
    name: 'a number written otherwise than JSON.stringify would (1.50)',
    line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"structuredContent":{"n":1.50}}}`,
  },
  { name: 'an exponent (1e400 is Infinity)', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"structuredContent":{"n":1e400}}}` },
  { name: 'minus zero', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"structuredContent":{"n":-0}}}` },
  { name: 'a __proto__ key', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"__proto__":{"isError":true}}}` },
  { name: 'a key spelled with an escape', line: `{"jsonrpc":"2.0","id":${ID},"result":{"content":[],"is\\u0045rror":true}}` },
  { name: 'the id spelled with an escape', line: `{"jsonrpc":"2.0","id":"mcpkit\\u002d7","result":{"content":[]}}` },
  { name: 'a top-level key spelled with an escape', line: `{"jsonrpc":"2.0","\\u0069d":${ID},"result":{"content":[]}}` },
];

describe('canonicalAnswer passes on a line every reader reads alike', () => {
  it.each(passed)('$name: passed on, the id swapped', ({ line, text, result }) => {
    const out = canonicalAnswer(line, answerOf(line), 5);
    expect(out?.text).toBe(text);
    expect(out && text.slice(out.resultStart, out.resultEnd)).toBe(result);
    // What the client reads is what mcpkit read, but the id.
    expect(JSON.parse(out!.text)).toEqual({ ...JSON.parse(line), id: 5 });
  });

  it('splices a string id with characters JSON escapes', () => {
    const line = `{"jsonrpc":"2.0","id":${ID},"result":{"content":[]}}`;
    const out = canonicalAnswer(line, answerOf(line), 'a"b\u00e9');
    expect(JSON.parse(out!.text).id).toBe('a"b\u00e9');
    expect(out!.text.slice(out!.resultStart, out!.resultEnd)).toBe('{"content":[]}');
  });

  it.each(refused)('$name: serialized again', ({ line }) => {
    expect(canonicalAnswer(line, answerOf(line), 5)).toBeUndefined();
  });

  it('refuses a line whose id is not the one it was read with', () => {
    const line = `{"jsonrpc":"2.0","id":${ID},"result":{"content":[]}}`;
    expect(canonicalAnswer(line, { ...answerOf(line), id: 'mcpkit-8' }, 5)).toBeUndefined();
  });

  it('takes a large text in time linear in its size', () => {
    const text = 'x\\"y '.repeat(400_000);
    const line = `{"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":${ID}}`;
    const out = canonicalAnswer(line, answerOf(line), 1);
    expect(out?.text.length).toBe(line.length - ID.length + 1);
  });
});
