import { describe, expect, it } from 'vitest';
import { parseCallLine } from '../../src/cli/args/call-line.js';
import { differingVariables, fromWire, lineReader, toWire, watchedVariables, type BrokenLine } from '../../src/daemon/client/protocol.js';
import { errorObject, ToolError } from '../../src/core/errors.js';

describe('the daemon protocol', () => {
  it.each<[string, Parameters<typeof watchedVariables>[0], string[], boolean]>([
    ['the placeholders of the parsed file', { references: { all: ['API', 'TOKEN'] }, mcp_servers: {} }, ['API', 'TOKEN'], false],
    [
      'a stdio server: the base environment it starts with, and its inherit_env list',
      { mcp_servers: { a: { command: 'x', inherit_env: ['AWS_PROFILE'] } } },
      ['AWS_PROFILE', 'PATH', 'TZ', 'LANG'],
      false,
    ],
    ['a server that inherits everything', { mcp_servers: { a: { command: 'x', inherit_env: true } } }, ['PATH'], true],
  ])('watches %s', (_what, config, some, all) => {
    const watched = watchedVariables(config);
    for (const name of some) expect(watched.names.has(name), name).toBe(true);
    expect(watched.all).toBe(all);
  });

  it.each<[string, Parameters<typeof watchedVariables>[0]]>([
    ['no server at all', { mcp_servers: {} }],
    ['only a remote server (it inherits nothing)', { mcp_servers: { a: { inherit_env: true } } }],
    ['a disabled stdio server', { mcp_servers: { a: { command: 'x', disabled: true } } }],
  ])('a config with %s is served whatever PATH, TZ, LANG or LC_* say', (_what, config) => {
    const watched = watchedVariables(config);
    expect(
      differingVariables({ PATH: '/a', TZ: 'UTC', LANG: 'C', LC_ALL: 'C' }, { PATH: '/b', TZ: 'Europe/Paris', LANG: 'fr_FR', LC_ALL: 'fr_FR' }, watched),
    ).toEqual([]);
  });

  const watch = (names: string[], all = false) => ({ names: new Set(names), all });
  it.each<[Record<string, string>, Record<string, string>, ReturnType<typeof watch>, string[]]>([
    [{ API: 'a' }, { API: 'a' }, watch(['API']), []],
    [{ API: 'a' }, { API: 'b' }, watch(['API']), ['API']],
    [{ API: 'a' }, {}, watch(['API']), ['API']],
    [{ OTHER: 'a' }, { OTHER: 'b' }, watch(['API']), []], // not the config's business
    [{ OTHER: 'a' }, { OTHER: 'b' }, watch([], true), ['OTHER']], // a server inherits everything
    [{ PWD: '/a', SHLVL: '1' }, { PWD: '/b', SHLVL: '2' }, watch([], true), []], // never anyone's business
    [{ MCPKIT_LOG_LEVEL: 'debug' }, {}, watch([]), []], // how much a command logs is its own
    [{ MCPKIT_REGISTRY_URL: 'a' }, {}, watch([]), ['MCPKIT_REGISTRY_URL']],
    [{ XDG_STATE_HOME: '/a' }, { XDG_STATE_HOME: '/b' }, watch([]), ['XDG_STATE_HOME']], // where logins are kept
    [{ LC_ALL: 'C' }, { LC_ALL: 'fr_FR' }, watch(['LANG']), ['LC_ALL']], // a stdio server's locale
    [{ LC_ALL: 'C' }, { LC_ALL: 'fr_FR' }, watch([]), []], // nothing started: no one's locale
    [{ PATH: '/usr/bin' }, { PATH: '/opt/evil:/usr/bin' }, watch(['PATH']), ['PATH']], // what servers start with
    [{}, { MCPKIT_NO_DAEMON: '0', MCPKIT_CONFIG: '/x.yaml' }, watch([]), []], // the client's own choices
  ])('differing variables %j vs %j', (daemon, client, watched, expected) => {
    expect(differingVariables(daemon, client, watched)).toEqual(expected);
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

  it.each([
    ['a line that is not JSON', ['{"a":1}\nnot json\n{"b":2}\n'], /not JSON/],
    ['a line over the limit, without a newline', ['x'.repeat(600), 'y'.repeat(600)], /over 1000 bytes/],
    ['a line over the limit, split', ['{"a":"', 'z'.repeat(2000), '"}\n'], /over 1000 bytes/],
  ])('stops at %s, and says so once', (_what, chunks, why) => {
    const seen: unknown[] = [];
    const broken: BrokenLine[] = [];
    const read = lineReader((m) => seen.push(m), { maxBytes: 1000, onBroken: (e) => broken.push(e) });
    for (const chunk of chunks) read(chunk);
    read('{"after":1}\n');
    expect(broken).toHaveLength(1);
    expect(broken[0]!.message).toMatch(why);
    expect(seen.every((m) => !(m as { after?: number }).after)).toBe(true);
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
