import { Chalk, supportsColor, type ChalkInstance } from 'chalk';

/** chalk alone ignores NO_COLOR (https://no-color.org); mcpkit honours it, and stays plain when not on a TTY. */
export function colorLevel(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): 0 | 1 | 2 | 3 {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.FORCE_COLOR !== undefined) return supportsColor ? supportsColor.level : 1;
  if (!stream.isTTY) return 0;
  return supportsColor ? supportsColor.level : 0;
}

export function createColor(env: NodeJS.ProcessEnv, stream: { isTTY?: boolean }): ChalkInstance {
  return new Chalk({ level: colorLevel(env, stream) });
}
