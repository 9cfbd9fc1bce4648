import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isWarning } from '../../src/config/check/check.js';
import { checkValues, problemsOfEdit, problemsOnLoad, readScalars, unsetVariableIn, unsetVariableMessage } from '../../src/config/check/value-check.js';
import { setAsideSource } from '../../src/registry/sources.js';

/** The one check of a config's values, and what a load and an edit each report from it. */
const check = (yaml: string, env: Record<string, string> = {}) => checkValues(parse(yaml) as Record<string, unknown>, env);
const said = (problems: { path: string; message: string }[]) => problems.map((p) => `${p.path}: ${p.message}`);

describe('an edit and a load check the values the variables give', () => {
  const R = 'serve:\n  replica_id: "${REPLICA_ID}"\n';
  const O = 'serve:\n  allowed_origins: ["${ORIGIN}"]\n';
  const P = 'serve:\n  port: ${PORT}\n';
  const U = 'mcp_servers:\n  gh:\n    url: "https://${HOST}/mcp"\n';
  const NOT_SET = (v: string) => `environment variable ${v} is not set (set it, or write \${${v}:-default})`;
  it.each<[string, string, Record<string, string>, string[], string[]]>([
    // label, yaml, env, an edit's problems, a load's problems
    ['a pattern, set and right', R, { REPLICA_ID: 'r1' }, [], []],
    [
      'a pattern, set and wrong',
      R,
      { REPLICA_ID: 'R_1' },
      ['serve.replica_id: a replica id is 1-32 lower-case letters, digits and dashes (the value of ${REPLICA_ID})'],
      ['serve.replica_id: a replica id is 1-32 lower-case letters, digits and dashes (the value of ${REPLICA_ID})'],
    ],
    // Unset: checked where it is set; a load says it is not set, once (not also the pattern the placeholder's text fails).
    ['a pattern, unset', R, {}, [], [`serve.replica_id: ${NOT_SET('REPLICA_ID')}`]],
    ['a pattern with a default', 'serve:\n  replica_id: "${REPLICA_ID:-r9}"\n', {}, [], []],
    ['an origin, set and right', O, { ORIGIN: 'https://a.example' }, [], []],
    ['an origin, unset', O, {}, [], [`serve.allowed_origins.0: ${NOT_SET('ORIGIN')}`]],
    ['a number, set', P, { PORT: '8001' }, [], []],
    [
      'a number, set to text',
      P,
      { PORT: '80x' },
      ['serve.port: Invalid input: expected number, received string (the value of ${PORT})'],
      ['serve.port: Invalid input: expected number, received string (the value of ${PORT})'],
    ],
    // A number needs the value: an edit says so as a load does.
    ['a number, unset', P, {}, [`serve.port: ${NOT_SET('PORT')}`], [`serve.port: ${NOT_SET('PORT')}`]],
    [
      'a number in quotes, no variable: still the mistake it is',
      'serve:\n  port: "8001"\n',
      {},
      ['serve.port: Invalid input: expected number, received string'],
      ['serve.port: Invalid input: expected number, received string'],
    ],
    ['true/false from a variable', 'serve:\n  metrics: ${METRICS}\n', { METRICS: 'false' }, [], []],
    ['a URL host, set and right', U, { HOST: 'gh.example' }, [], []],
    [
      'a URL host that would change the host',
      U,
      { HOST: 'evil.example/x?' },
      [
        'mcp_servers.gh.url: environment variable HOST cannot go where it stands: a value in the host of a URL may hold only letters, digits, "." and "-" (it would change which host the URL names)',
      ],
      [
        'mcp_servers.gh.url: environment variable HOST cannot go where it stands: a value in the host of a URL may hold only letters, digits, "." and "-" (it would change which host the URL names)',
      ],
    ],
    ['a URL, unset', 'mcp_servers:\n  gh:\n    url: ${GH_URL}\n', {}, [], [`mcp_servers.gh.url: ${NOT_SET('GH_URL')}`]],
    ['free text, unset', 'serve:\n  token: "${T}"\n', {}, [], [`serve.token: ${NOT_SET('T')}`]],
  ])('%s', (_label, yaml, env, onEdit, onLoad) => {
    const checked = check(yaml, env);
    expect(said(problemsOfEdit(checked))).toEqual(onEdit);
    expect(said(problemsOnLoad(checked))).toEqual(onLoad);
  });

  it('reads the number a variable gives as a number for the config, not only for the check', () => {
    const checked = check('serve:\n  port: ${PORT}\n  metrics: ${M}\n', { PORT: '8001', M: 'true' });
    expect(checked.parsed.success && checked.parsed.data.serve).toMatchObject({ port: 8001, metrics: true });
  });
});

describe('readScalars', () => {
  const issue = (path: (string | number)[], expected: 'number' | 'boolean') =>
    ({ code: 'invalid_type', expected, path, message: '', input: undefined }) as never;
  it.each<[string, Record<string, unknown>, ReturnType<typeof issue>[], string[], Record<string, unknown>]>([
    ['a number from a variable', { s: { port: '80' } }, [issue(['s', 'port'], 'number')], ['s.port'], { s: { port: 80 } }],
    ['a decimal, a negative', { a: '-1.5' }, [issue(['a'], 'number')], ['a'], { a: -1.5 }],
    ['not from a variable: left', { s: { port: '80' } }, [issue(['s', 'port'], 'number')], [], { s: { port: '80' } }],
    ['not a number: left', { a: '0x10' }, [issue(['a'], 'number')], ['a'], { a: '0x10' }],
    ['an empty text: left', { a: '' }, [issue(['a'], 'number')], ['a'], { a: '' }],
    [
      'true and false',
      { a: 'true', b: 'false', c: 'yes' },
      [issue(['a'], 'boolean'), issue(['b'], 'boolean'), issue(['c'], 'boolean')],
      ['a', 'b', 'c'],
      { a: true, b: false, c: 'yes' },
    ],
    ['in a list', { l: ['1', '2'] }, [issue(['l', 1], 'number')], ['l.1'], { l: ['1', 2] }],
  ])('%s', (_label, value, issues, fromVariables, expected) => {
    const before = structuredClone(value);
    expect(readScalars(value, issues, new Set(fromVariables))).toEqual(expected);
    expect(value).toEqual(before); // a copy
  });
});

describe("a registry source's unset variable is a warning, and its commands say which", () => {
  it.each([
    [{ path: 'registry.sources.company.api_key', message: unsetVariableMessage('COMPANY_KEY') }, true],
    [{ path: 'registry.sources.company.url', message: 'url must be an http(s) URL' }, false],
    [{ path: 'registry.timeout_ms', message: unsetVariableMessage('T') }, false],
    [{ path: 'mcp_servers.gh.headers.A', message: unsetVariableMessage('GH') }, false],
    [{ path: 'serve.replica_id', message: unsetVariableMessage('REPLICA_ID') }, false],
  ])('%j: %s', (problem, warning) => expect(isWarning(problem)).toBe(warning));

  it.each([
    [unsetVariableMessage('A_B1'), 'A_B1'],
    ['environment variable A cannot go where it stands: ...', undefined],
    ['url must be an http(s) URL', undefined],
  ])('unsetVariableIn(%j) is %s', (message, variable) => expect(unsetVariableIn(message)).toBe(variable));

  it.each<[string, string[], boolean, string, string]>([
    [
      'one key, the default',
      [`registry.sources.company.api_key: ${unsetVariableMessage('COMPANY_KEY')}`],
      true,
      'Registry source "company" (the default registry, registry.default) needs COMPANY_KEY (its api_key uses ${COMPANY_KEY}), which is not set.',
      'Set COMPANY_KEY in the environment mcpkit runs in',
    ],
    [
      'two variables, named',
      [`registry.sources.c.api_key: ${unsetVariableMessage('K')}`, `registry.sources.c.tenant_id: ${unsetVariableMessage('T')}`],
      false,
      'Registry source "c" needs K and T (its api_key uses ${K}, its tenant_id uses ${T}), which are not set.',
      'Set K and T',
    ],
    [
      'another problem',
      ['registry.sources.c.url: url must be an http(s) URL'],
      false,
      'Registry source "c" cannot be used:\n  registry.sources.c.url: url must be an http(s) URL',
      'mcpkit registry source remove c',
    ],
  ])('%s', (_label, lines, isDefault, message, hint) => {
    const error = setAsideSource(lines[0]!.split('.')[2]!, lines, isDefault);
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', message });
    expect(error.hint).toContain(hint);
  });
});
