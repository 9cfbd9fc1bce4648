import { describe, expect, it } from 'vitest';
import { locateConfig, userConfigPath } from '../../src/config/locate.js';

describe('locateConfig', () => {
  const cwd = '/work/project';
  const home = '/home/me';
  it.each([
    ['--config wins over everything', { flag: 'x.yaml', env: { MCPKIT_CONFIG: '/e.yaml' }, local: true }, { path: '/work/project/x.yaml', source: 'flag' }],
    ['MCPKIT_CONFIG next', { env: { MCPKIT_CONFIG: '/e.yaml' }, local: true }, { path: '/e.yaml', source: 'env' }],
    [
      'relative MCPKIT_CONFIG resolves against cwd',
      { env: { MCPKIT_CONFIG: 'conf/m.yaml' }, local: false },
      { path: '/work/project/conf/m.yaml', source: 'env' },
    ],
    ['./mcpkit.yaml when present', { env: {}, local: true }, { path: '/work/project/mcpkit.yaml', source: 'cwd' }],
    ['XDG_CONFIG_HOME otherwise', { env: { XDG_CONFIG_HOME: '/xdg' }, local: false }, { path: '/xdg/mcpkit/config.yaml', source: 'user' }],
    ['~/.config without XDG', { env: {}, local: false }, { path: '/home/me/.config/mcpkit/config.yaml', source: 'user' }],
    ['empty MCPKIT_CONFIG is ignored', { env: { MCPKIT_CONFIG: '' }, local: false }, { path: '/home/me/.config/mcpkit/config.yaml', source: 'user' }],
  ])('%s', (_name, c, expected) => {
    const located = locateConfig({ flag: (c as { flag?: string }).flag, env: c.env, cwd, home, exists: (p) => c.local && p === '/work/project/mcpkit.yaml' });
    expect(located).toEqual(expected);
  });

  it('userConfigPath ignores a blank XDG_CONFIG_HOME', () => {
    expect(userConfigPath({ XDG_CONFIG_HOME: ' ' }, '/h')).toBe('/h/.config/mcpkit/config.yaml');
  });
});
