import { describe, expect, it } from 'vitest';
import { interpolate, interpolateString, literalText, textAsSent, variablesIn } from '../../src/config/secrets/interpolate.js';
import { maskSecrets, MASK } from '../../src/config/secrets/mask.js';
import { keyringNameProblem, secretFilePath, secretFileValue, secretSourcesIn, type SecretValues } from '../../src/config/secrets/secret-refs.js';

const secrets: SecretValues = new Map<string, { value: string } | { problem: string }>([
  ['file:tok.txt', { value: 'from-file' }],
  ['file:/run/secrets/gh', { value: 'gh-123' }],
  ['keyring:GH', { value: 'from-keyring' }],
  ['keyring:EMPTY', { value: '' }],
  ['file:gone.txt', { problem: 'the secret file /cfg/gone.txt cannot be read (it does not exist)' }],
]);
const env = { HOME: '/home/me', file: 'the-variable-file' };

describe('${file:PATH} and ${keyring:NAME} in a string', () => {
  it.each([
    ['${file:tok.txt}', 'from-file', []],
    ['Bearer ${file:/run/secrets/gh}', 'Bearer gh-123', []],
    ['${keyring:GH}@${HOME}', 'from-keyring@/home/me', []],
    ['${keyring:EMPTY}', '', []],
    // Escaped: text, never read.
    ['$${file:tok.txt}', '${file:tok.txt}', []],
    ['$${keyring:GH}', '${keyring:GH}', []],
    // `${file:-x}` is still the variable `file` with a default.
    ['${file:-x}', 'the-variable-file', []],
    ['${file:gone.txt}', '${file:gone.txt}', [{ source: 'file:gone.txt', why: 'the secret file /cfg/gone.txt cannot be read (it does not exist)' }]],
    ['${keyring:UNREAD}', '${keyring:UNREAD}', [{ source: 'keyring:UNREAD', why: 'keyring:UNREAD was not read' }]],
  ])('%s', (text, expected, unread) => {
    const result = interpolateString(text, env, false, secrets);
    expect(result.text).toBe(expected);
    expect(result.unread).toEqual(unread);
    expect(result.missing).toEqual([]);
  });

  it('is never read without the secrets read for it (what an edit checks expands nothing from disk)', () => {
    expect(interpolateString('${file:tok.txt}', env).unread).toEqual([{ source: 'file:tok.txt', why: 'file:tok.txt was not read' }]);
  });

  it('is placed in a URL as a variable is: refused in the host, encoded after it', () => {
    const url = new Map([
      ['file:host', { value: 'evil.com/x' }],
      ['file:seg', { value: 'a b/c' }],
    ]);
    expect(interpolateString('https://${file:host}/mcp', env, true, url).refused).toHaveLength(1);
    expect(interpolateString('https://h/${file:seg}', env, true, url).text).toBe('https://h/a%20b%2Fc');
  });

  it('is escaped as agent-written text is, so that loading gives back the text', () => {
    for (const text of ['${file:/etc/passwd}', '${keyring:GH}', 'x$${file:a}'])
      expect(interpolateString(literalText(text), env, false, secrets).text).toBe(text);
  });

  it('is named for what it is when put to a person, and is no variable', () => {
    expect(textAsSent('Bearer ${file:tok.txt} ${keyring:GH}')).toBe('Bearer <the contents of the file tok.txt> <the secret GH of the system keyring>');
    expect(variablesIn('${file:tok.txt} ${keyring:GH} ${HOME}')).toEqual(['HOME']);
  });
});

describe('secrets in a config', () => {
  const raw = { mcp_servers: { gh: { env: { T: '${file:tok.txt}', K: 'x ${keyring:GH}', N: '${file:gone.txt}' }, args: ['$${file:/etc/shadow}'] } } };

  it('are reported like unset variables, with the message naming the file, and masked like them', () => {
    const result = interpolate(raw, env, secrets);
    expect(result.missing).toEqual([
      { path: 'mcp_servers.gh.env.N', variable: 'file:gone.txt', message: 'the secret file /cfg/gone.txt cannot be read (it does not exist)' },
    ]);
    expect([...result.fromEnv].sort()).toEqual(['mcp_servers.gh.env.K', 'mcp_servers.gh.env.T']);
    expect([...result.envValues].sort()).toEqual(['from-file', 'from-keyring']);
    // No variable named: a server's own environment withholds only variables (config/server-env.ts).
    expect(result.references).toEqual([]);
    const shown = JSON.stringify(maskSecrets(result.value, result.fromEnv));
    expect(shown).not.toMatch(/from-file|from-keyring/);
    expect(shown).toContain(MASK);
    // As written, a placeholder under a secret-looking key is shown: its secret is elsewhere.
    expect(maskSecrets({ headers: { Authorization: 'Bearer ${file:tok.txt}', token: '${keyring:GH}' } }, new Set())).toEqual({
      headers: { Authorization: 'Bearer ${file:tok.txt}', token: '${keyring:GH}' },
    });
  });

  it('are found as written, each once, escaped ones not at all', () => {
    expect(secretSourcesIn({ ...raw, more: ['${file:tok.txt}', '${keyring:GH}', '${file:-default}'] })).toEqual({
      files: ['tok.txt', 'gone.txt'],
      keyring: ['GH'],
    });
  });
});

describe('secret files and names', () => {
  it.each([
    ['tok.txt', '/cfg/tok.txt'],
    ['sub/../tok.txt', '/cfg/tok.txt'],
    ['../secrets/gh', '/secrets/gh'],
    ['/run/secrets/gh', '/run/secrets/gh'],
  ])('%s from /cfg is %s', (written, path) => expect(secretFilePath(written, '/cfg')).toBe(path));

  it.each([
    ['abc\n', 'abc'],
    ['abc\r\n', 'abc'],
    ['abc\n\n', 'abc\n'],
    ['abc', 'abc'],
    ['-----BEGIN KEY-----\nxyz\n-----END KEY-----\n', '-----BEGIN KEY-----\nxyz\n-----END KEY-----'],
    ['', ''],
  ])('%j reads as %j (one trailing newline dropped)', (text, value) => expect(secretFileValue(text)).toBe(value));

  it.each([
    ['GITHUB_TOKEN', true],
    ['team.gh-token@work', true],
    ['9lives', true],
    ['-rf', false],
    ['has space', false],
    ['', false],
    ['a/b', false],
    ['x'.repeat(129), false],
  ])('%s is a secret name: %s', (name, ok) => expect(keyringNameProblem(name) === undefined).toBe(ok));
});
