import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export type ConfigSourceKind = 'flag' | 'env' | 'cwd' | 'user';

export interface ConfigSource {
  /** Absolute path of the config file; it may not exist (then built-in defaults apply). */
  path: string;
  /** Which rule chose it: `--config`, `MCPKIT_CONFIG`, `./mcpkit.yaml`, or the user config directory. */
  source: ConfigSourceKind;
}

export const LOCAL_CONFIG_NAME = 'mcpkit.yaml';

export function userConfigPath(env: NodeJS.ProcessEnv, home = homedir()): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() !== '' ? env.XDG_CONFIG_HOME : join(home, '.config');
  return resolve(base, 'mcpkit', 'config.yaml');
}

/** The lookup order: `--config`, then `MCPKIT_CONFIG`, then `./mcpkit.yaml` if present, then the user config directory. */
export function locateConfig(options: { flag?: string; env: NodeJS.ProcessEnv; cwd: string; exists?: (path: string) => boolean; home?: string }): ConfigSource {
  const exists = options.exists ?? existsSync;
  if (options.flag) return { path: resolve(options.cwd, options.flag), source: 'flag' };
  const fromEnv = options.env.MCPKIT_CONFIG;
  if (fromEnv && fromEnv.trim() !== '') return { path: resolve(options.cwd, fromEnv), source: 'env' };
  const local = resolve(options.cwd, LOCAL_CONFIG_NAME);
  if (exists(local)) return { path: local, source: 'cwd' };
  return { path: userConfigPath(options.env, options.home), source: 'user' };
}

export function describeSource(source: ConfigSourceKind): string {
  switch (source) {
    case 'flag':
      return 'the --config flag';
    case 'env':
      return 'MCPKIT_CONFIG';
    case 'cwd':
      return `./${LOCAL_CONFIG_NAME} in the current directory`;
    case 'user':
      return 'the user config directory';
  }
}
