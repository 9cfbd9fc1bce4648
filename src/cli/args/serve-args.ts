import type { ServeOptions } from '../../mcp/access/serve-policy.js';
import { parsePlainLine, type PlainGrammar } from './plain-line.js';

/**
 * The flags `serve` takes, parsed without oclif for the fast path (see bin/run.js) by the one
 * plain grammar (plain-line.ts). Returns undefined for anything it does not fully understand
 * (--help, a typo, a missing value), so that oclif handles it with its usual help and errors. Pure.
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

const SERVE_GRAMMAR: PlainGrammar = Object.fromEntries([
  ...SERVE_VALUE_FLAGS.map((name) => [name, { type: 'string' }] as const),
  ...SERVE_BOOLEAN_FLAGS.map((name) => [name, { type: 'boolean' }] as const),
  ...SERVE_MULTI_FLAGS.map((name) => [name, { type: 'string', multiple: true }] as const),
]);

export function parseServeArgs(argv: readonly string[]): ServeArgs | undefined {
  const line = parsePlainLine(SERVE_GRAMMAR, argv, { positionals: false });
  if (!line) return undefined;
  // An empty value is a mistake oclif words better (`--config=`).
  const empty = (value: unknown) => value === '' || (Array.isArray(value) && value.includes(''));
  if (Object.values(line.values).some(empty)) return undefined;
  return line.values as ServeArgs;
}

/** serve's flags as `runServe` takes them, from the fast path's parse or oclif's (one mapping for both). Pure. */
export function serveOptionsOf(flags: ServeArgs, version: string): ServeOptions {
  const {
    config,
    'read-only': readOnly,
    'allow-origin': allowOrigins,
    'token-budget': tokenBudget,
    'token-env': tokenEnv,
    'audit-log': auditLog,
    ...rest
  } = flags;
  const given = { configFlag: config, readOnly, allowOrigins, tokenBudget, tokenEnv, auditLog, ...rest };
  // Flags not given stay absent, as they were never written.
  return { ...(Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Omit<ServeOptions, 'version'>), version };
}
