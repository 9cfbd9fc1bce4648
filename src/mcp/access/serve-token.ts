import { ToolError } from '../../core/errors.js';

/** The variable serve --http reads its token from when no flag names one. */
export const DEFAULT_TOKEN_VARIABLE = 'MCPKIT_TOKEN';

/**
 * The bearer token of serve --http, kept out of argv (where `ps` shows it to every user of the
 * machine): --token, else the variable --token-env names, else MCPKIT_TOKEN, else undefined (then
 * serve.token of the config). Pure: the environment is given.
 */
export function serveToken(options: { token?: string; tokenEnv?: string }, env: NodeJS.ProcessEnv): string | undefined {
  if (options.token !== undefined) {
    if (options.tokenEnv !== undefined) throw new ToolError('INVALID_INPUT', 'Give --token or --token-env, not both.');
    return options.token;
  }
  if (options.tokenEnv !== undefined) {
    const value = env[options.tokenEnv];
    if (value === undefined || value.trim() === '') {
      throw new ToolError('INVALID_INPUT', `--token-env names ${options.tokenEnv}, which is ${value === undefined ? 'not set' : 'empty'}.`, {
        hint: `Set it first: export ${options.tokenEnv}=... (a long random string, e.g. from: openssl rand -hex 32).`,
      });
    }
    return value;
  }
  const fallback = env[DEFAULT_TOKEN_VARIABLE];
  return fallback !== undefined && fallback.trim() !== '' ? fallback : undefined;
}
