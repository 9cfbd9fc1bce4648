import { describe, expect, it } from 'vitest';
import { jqExpression, jqText, loadJq } from '../../src/cli/terminal/jq-output.js';

describe('--jq: the expression on the line', () => {
  it.each([
    [['config', 'path', '--jq', '.path'], '.path'],
    [['config', 'path', '--jq=.path'], '.path'],
    [['config', 'path', '--jq'], ''],
    [['filter', 'run', '--', 'node', 'x', '--jq', '.a'], undefined],
    [['config', 'path', '--json'], undefined],
  ])('%j -> %s', (argv, want) => {
    expect(jqExpression(argv)).toBe(want);
  });
});

describe('--jq: what is printed, as gh prints it', () => {
  const value = {
    servers: [
      { name: 'a', tools: 2 },
      { name: 'b', tools: 3 },
    ],
    ok: true,
  };
  it.each([
    ['.servers[].name', false, 'a\nb\n'],
    ['[.servers[].tools] | add', false, '5\n'],
    ['.servers[0]', false, '{"name":"a","tools":2}\n'],
    ['.servers[0]', true, '{\n  "name": "a",\n  "tools": 2\n}\n'],
    ['.servers | map(.name) | join(",")', false, 'a,b\n'],
    ['.servers[] | select(.tools > 5)', false, ''],
    ['.servers[].name | ascii_upcase', false, 'A\nB\n'],
  ])('%s (pretty: %s)', async (expression, pretty, want) => {
    expect(jqText(await loadJq(), expression, value, pretty)).toBe(want);
  });

  it.each([
    ['.servers |', /--jq is not a jq expression: syntax error/],
    ['.servers[0] | .[0]', /--jq failed: Cannot index object with number/],
    ['  ', /--jq needs an expression/],
  ])("%s is refused with jq's own words", async (expression, message) => {
    const jq = await loadJq();
    expect(() => jqText(jq, expression, value, false)).toThrow(message);
  });
});
