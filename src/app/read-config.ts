import { locateConfig, type ConfigSource } from '../config/locate.js';
import type { ConfigWithSource } from '../config/load.js';
import type { RuntimeOptions } from './runtime-options.js';

/** The config a runtime with these options reads, read before it is built: `serve` decides the runtime's policy from it. */
export function readConfig(options: Pick<RuntimeOptions, 'configFlag' | 'env' | 'cwd'>): Promise<ConfigWithSource> {
  const env = options.env ?? process.env;
  return loadAt(locateConfig({ flag: options.configFlag, env, cwd: options.cwd ?? process.cwd() }), env);
}

function loadAt(location: ConfigSource, env: NodeJS.ProcessEnv): Promise<ConfigWithSource> {
  return import('../config/load.js').then(({ loadConfigWithSource }) => loadConfigWithSource(location, env));
}
