import { describe, expect, it } from 'vitest';
import { parseCallLine } from '../../src/cli/call-line.js';
import { configVariables, differingVariables, fromWire, lineReader, toWire } from '../../src/cli/daemon-protocol.js';
import { errorObject, ToolError } from '../../src/core/errors.js';

describe('the daemon protocol', () => {
  it.each([
    ['url: ${API}\ntoken: ${TOKEN:-none}\n', ['API', 'TOKEN']],
    ['literal: $${NOT_A_VAR} and ${REAL}', ['REAL']],
    ['a: ${X}\nb: ${X}', ['X']],
    ['nothing here: $HOME', []],
  ])('names the variables a config refers to: %j', (text, names) => {
    expect(configVariables(text)).toEqual(names);
  });

  it.each([
    [{ API: 'a' }, { API: 'a' }, 'url: ${API}', []],
    [{ API: 'a' }, { API: 'b' }, 'url: ${API}', ['API']],
    [{ API: 'a' }, {}, 'url: ${API}', ['API']],
    [{ OTHER: 'a' }, { OTHER: 'b' }, 'url: ${API}', []], // not the config's business
    [{ MCPKIT_LOG_LEVEL: 'debug' }, {}, '', ['MCPKIT_LOG_LEVEL']],
    [{}, { MCPKIT_NO_DAEMON: '0', MCPKIT_CONFIG: '/x.yaml' }, '', []], // the client's own choices
  ])('differing variables %j vs %j', (daemon, client, text, expected) => {
    expect(differingVariables(daemon, client, text)).toEqual(expected);
  });

  it('carries an error across the socket as the command would have thrown it, secrets hidden, field words still open', () => {
    const thrown = new ToolError('INVALID_INPUT', 'Bad ⟦limit⟧ for secret-value', { details: { value: 'secret-value' }, hint: 'see secret-value' });
    const hide = (text: string) => text.split('secret-value').join('****');
    const wire = JSON.parse(JSON.stringify(toWire(thrown, hide, (v) => JSON.parse(hide(JSON.stringify(v))) as typeof v)));
    const words = { field: (n: string) => `--${n}`, inputHint: 'help' };
    expect(errorObject(fromWire(wire), words)).toEqual({
      code: 'INVALID_INPUT',
      message: 'Bad --limit for ****',
      details: { value: '****' },
      hint: 'see ****',
    });
    expect(errorObject(fromWire(toWire(new Error('boom'), hide, (v) => v)))).toMatchObject({ code: 'INTERNAL', message: 'Unexpected error: boom' });
  });

  it('reads JSON lines split anywhere across chunks', () => {
    const seen: unknown[] = [];
    const read = lineReader((m) => seen.push(m));
    for (const chunk of ['{"a":', '1}\n{"b"', ':2}\n\n', '{"c":3}']) read(chunk);
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
    read('\n');
    expect(seen).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });
});

describe('parseCallLine (the call fast path)', () => {
  it.each([
    [['echo', 'message=hi'], { name: 'echo', pairs: ['message=hi'], base: {}, json: false }],
    [['echo', '--json', 'message=a=b'], { name: 'echo', pairs: ['message=a=b'], base: {}, json: true }],
    [['echo', '--config', 'c.yaml'], { name: 'echo', pairs: [], base: {}, json: false, config: 'c.yaml' }],
    [['echo', '--config=c.yaml', '-a', '{"x":1}'], { name: 'echo', pairs: [], base: { x: 1 }, json: false, config: 'c.yaml' }],
    [['echo', '--args={"x":1}', 'x=2'], { name: 'echo', pairs: ['x=2'], base: { x: 1 }, json: false }],
  ])('%j', (argv, expected) => {
    expect(parseCallLine(argv)).toEqual(expected);
  });

  it.each([
    [[]],
    [['--help']],
    [['echo', '--help']],
    [['echo', '--no-daemon']],
    [['echo', 'positional']],
    [['echo', '--args', '-']], // stdin: oclif's command reads it
    [['echo', '--args', '[1]']], // not an object: oclif's command refuses it
    [['echo', '--args', '{bad']],
    [['echo', '--json', '--json']],
    [['echo', '--config']],
  ])('defers %j to oclif', (argv) => {
    expect(parseCallLine(argv)).toBeUndefined();
  });
});
