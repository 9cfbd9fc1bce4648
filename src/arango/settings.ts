/**
 * Where and how to reach ArangoDB: the config's `arango` section, overridden by the ArangoDB tool set's
 * environment variables (ARANGO_URL, ARANGO_DB, ARANGO_USERNAME/ARANGO_USER,
 * ARANGO_PASSWORD/ARANGO_PASS, ARANGO_TIMEOUT_SEC, ARANGO_CONNECT_RETRIES,
 * ARANGO_CONNECT_DELAY_SEC) and ARANGO_READ_ONLY. Several coordinators of a cluster may be given
 * (a list, or comma-separated); arangojs balances over them. Pure.
 */
import { SETTING_DEFAULTS } from '../config/schema/defaults.js';

export interface ArangoSection {
  url?: string | string[];
  database?: string;
  username?: string;
  password?: string;
  timeout_ms?: number;
  connect_retries?: number;
  connect_delay_ms?: number;
  read_only?: boolean;
}

export interface ArangoSettings {
  urls: string[];
  database: string;
  username: string;
  password: string;
  timeoutMs: number;
  /** Connection attempts when serve starts (by default 5, two seconds apart). */
  connectRetries: number;
  connectDelayMs: number;
  readOnly: boolean;
  /** Whether anything points at a database (config or environment), so serve should connect at start. */
  configured: boolean;
}

const DEFAULTS = SETTING_DEFAULTS.arango;
export const DEFAULT_URL = DEFAULTS.url;

function positive(value: string | undefined, what: string, scale: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${what} must be a non-negative number, got "${value}"`);
  return Math.round(n * scale);
}

/** The arango group's own read-only setting: arango.read_only, or ARANGO_READ_ONLY. */
export function readOnlyFrom(section: Pick<ArangoSection, 'read_only'>, env: NodeJS.ProcessEnv): boolean {
  return env.ARANGO_READ_ONLY === 'true' || env.ARANGO_READ_ONLY === '1' || section.read_only === true;
}

/**
 * A URL's user and password (http://root:pass@host), taken out of it: fetch, under arangojs,
 * refuses a URL with credentials, so they go into the connection's auth instead.
 */
export function splitCredentials(url: string): { url: string; username?: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url }; // arangojs names a malformed URL itself
  }
  if (!parsed.username && !parsed.password) return { url };
  return {
    url: url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1'), // otherwise as written
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

export function resolveArangoSettings(section: ArangoSection, env: NodeJS.ProcessEnv): ArangoSettings {
  const urlText = env.ARANGO_URL ?? section.url;
  const written = (Array.isArray(urlText) ? urlText : (urlText ?? DEFAULT_URL).split(',')).map((u) => u.trim()).filter(Boolean);
  const split = written.map(splitCredentials);
  const urls = split.map((s) => s.url);
  // Credentials in a URL say more than the section's username/password; the environment's say most.
  const inUrl = split.find((s) => s.username !== undefined);
  return {
    urls: urls.length ? urls : [DEFAULT_URL],
    database: env.ARANGO_DB ?? section.database ?? DEFAULTS.database,
    username: env.ARANGO_USERNAME ?? env.ARANGO_USER ?? (inUrl?.username || undefined) ?? section.username ?? DEFAULTS.username,
    password: env.ARANGO_PASSWORD ?? env.ARANGO_PASS ?? inUrl?.password ?? section.password ?? '',
    timeoutMs: positive(env.ARANGO_TIMEOUT_SEC, 'ARANGO_TIMEOUT_SEC', 1000) ?? section.timeout_ms ?? DEFAULTS.timeout_ms,
    connectRetries: Math.max(1, positive(env.ARANGO_CONNECT_RETRIES, 'ARANGO_CONNECT_RETRIES', 1) ?? section.connect_retries ?? DEFAULTS.connect_retries),
    connectDelayMs: positive(env.ARANGO_CONNECT_DELAY_SEC, 'ARANGO_CONNECT_DELAY_SEC', 1000) ?? section.connect_delay_ms ?? DEFAULTS.connect_delay_ms,
    readOnly: readOnlyFrom(section, env),
    configured: Object.keys(section).length > 0 || env.ARANGO_URL !== undefined,
  };
}
