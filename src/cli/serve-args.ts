/**
 * The flags `serve` takes, parsed without oclif for the fast path (see bin/run.js). Returns
 * undefined for anything it does not fully understand (--help, a typo, a missing value), so that
 * oclif handles it with its usual help and errors. Pure.
 */
export interface ServeArgs {
  config?: string;
  view?: string;
  eager?: boolean;
  http?: boolean;
  host?: string;
  port?: string;
  token?: string;
  'token-env'?: string;
  'read-only'?: boolean;
  'allow-origin'?: string[];
  groups?: string;
  exposure?: string;
  'token-budget'?: string;
  'audit-log'?: string;
}

/** Flags taking a value; a parity test keeps this in step with the oclif command's flags. */
export const SERVE_VALUE_FLAGS = ['config', 'view', 'host', 'port', 'token', 'token-env', 'groups', 'exposure', 'token-budget', 'audit-log'] as const;
export const SERVE_BOOLEAN_FLAGS = ['eager', 'http', 'read-only'] as const;
/** Flags that may be repeated, each taking a value. */
export const SERVE_MULTI_FLAGS = ['allow-origin'] as const;

export function parseServeArgs(argv: readonly string[]): ServeArgs | undefined {
  const out: Record<string, string | boolean | string[]> = {};
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/.exec(token);
    if (!match) return undefined;
    const [, name, inline] = match;
    if ((SERVE_MULTI_FLAGS as readonly string[]).includes(name!)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) return undefined;
      out[name!] = [...((out[name!] as string[] | undefined) ?? []), value];
    } else if ((SERVE_VALUE_FLAGS as readonly string[]).includes(name!)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) return undefined;
      if (name! in out) return undefined;
      out[name!] = value;
    } else if ((SERVE_BOOLEAN_FLAGS as readonly string[]).includes(name!) && inline === undefined) {
      if (name! in out) return undefined;
      out[name!] = true;
    } else {
      return undefined;
    }
  }
  return out as ServeArgs;
}
