import { describe, expect, it } from 'vitest';
import { serverEnvironment, withheldFrom } from '../../src/config/server-env.js';

const PARENT = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  TERM: 'xterm',
  MCPKIT_TOKEN: 'serve-secret',
  MCPKIT_CONFIG: '/x/mcpkit.yaml',
  GITHUB_TOKEN: 'gh-secret',
  OTHER_SERVER_KEY: 'other-secret',
  AWS_PROFILE: 'dev',
  XDG_CONFIG_HOME: '/home/u/.config',
  UNSET: undefined,
};
const withheld = new Set(['GITHUB_TOKEN', 'OTHER_SERVER_KEY', 'HOME']);

describe('serverEnvironment', () => {
  it.each<[string, Parameters<typeof serverEnvironment>[1], Record<string, string>]>([
    [
      "the default: the base only, and the entry's own env",
      { env: { MEMORY_FILE: '/tmp/m' } },
      { PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm', MEMORY_FILE: '/tmp/m' },
    ],
    ['false is the default', { inherit_env: false }, { PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm' }],
    [
      'a list adds those names, even one mcpkit or another server uses',
      { inherit_env: ['AWS_PROFILE', 'GITHUB_TOKEN', 'MCPKIT_CONFIG', 'NOT_SET_AT_ALL'] },
      {
        PATH: '/usr/bin',
        HOME: '/home/u',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TERM: 'xterm',
        AWS_PROFILE: 'dev',
        GITHUB_TOKEN: 'gh-secret',
        MCPKIT_CONFIG: '/x/mcpkit.yaml',
      },
    ],
    [
      "true passes everything but mcpkit's own and what the rest of the config names",
      { inherit_env: true },
      { PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm', AWS_PROFILE: 'dev', XDG_CONFIG_HOME: '/home/u/.config' },
    ],
    [
      "the entry's env wins over what is inherited",
      { inherit_env: true, env: { PATH: '/opt/bin' } },
      { PATH: '/opt/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C', TERM: 'xterm', AWS_PROFILE: 'dev', XDG_CONFIG_HOME: '/home/u/.config' },
    ],
  ])('%s', (_what, server, expected) => {
    expect(serverEnvironment(PARENT, server, withheld, 'linux')).toEqual(expected);
  });

  it('on Windows the base has what a program there needs', () => {
    expect(serverEnvironment({ SystemRoot: 'C:\\Windows', APPDATA: 'x', SECRET: 'y' }, {}, new Set(), 'win32')).toEqual({
      SystemRoot: 'C:\\Windows',
      APPDATA: 'x',
    });
  });
});

describe('withheldFrom', () => {
  it("is every variable the config names except the server's own", () => {
    const references = { all: ['A_KEY', 'B_KEY', 'SERVE_TOKEN'], servers: { a: ['A_KEY'], b: ['B_KEY'] } };
    expect([...withheldFrom('a', references)].sort()).toEqual(['B_KEY', 'SERVE_TOKEN']);
    expect([...withheldFrom('c', undefined)]).toEqual([]);
  });
});
