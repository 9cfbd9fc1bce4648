import { SECRET_KEY } from '../secrets/mask.js';

/**
 * Literal secrets in imported server entries (`server import`), turned into `${VAR}` references
 * so that the YAML keeps none: an `env` value under a secret-looking key or that looks like a
 * token keeps its variable's own name; a header's or an argument's token gets SERVER_TOKEN
 * (SERVER_TOKEN_2, ... for more). The values go nowhere: the caller says which variables to set.
 * Pure.
 */
export interface MovedSecret {
  /** The variable the config now refers to. */
  variable: string;
  /** Where the value was, as a config path: mcp_servers.NAME.env.KEY. */
  path: string;
  /** The value, for the caller's environment check; never shown. */
  value: string;
}

/** Tokens of well-known services, and long random-looking strings (letters and digits, 24 or more). */
const TOKEN_SHAPES = [
  /^(gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}$/,
  /^(sk|pk|rk)-[A-Za-z0-9_-]{16,}$/,
  /^xox[abpsr]-[A-Za-z0-9-]{10,}$/,
  /^glpat-[A-Za-z0-9_-]{16,}$/,
  /^AKIA[0-9A-Z]{16}$/,
  /^eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+$/, // a JWT
];

export function looksLikeToken(value: string): boolean {
  if (TOKEN_SHAPES.some((re) => re.test(value))) return true;
  // A path (a project folder, a temporary one with random letters and digits) is not a token.
  if (/^(\/|\.{1,2}\/|~\/)/.test(value)) return false;
  return value.length >= 24 && /^[A-Za-z0-9_\-+/=]+$/.test(value) && /[A-Za-z]/.test(value) && /[0-9]/.test(value) && !/^[a-z_-]+$/.test(value);
}

const PLACEHOLDER = /\$\{/;

/** A name in environment-variable spelling: github-copilot -> GITHUB_COPILOT (it may still start with a digit). Pure. */
export function upperSnake(text: string): string {
  return text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A variable name from a server name: github-copilot -> GITHUB_COPILOT_TOKEN. */
function variableOf(server: string, suffix: string): string {
  const base = upperSnake(server);
  return `${/^[0-9]/.test(base) ? `S_${base}` : base || 'SERVER'}_${suffix}`;
}

/**
 * The entries with their secrets replaced. `taken` holds the variables earlier servers of the
 * same import already use, with their values: the same variable is reused only for the same value.
 */
export function externalizeSecrets(
  server: string,
  entry: Record<string, unknown>,
  taken: Map<string, string> = new Map(),
): { entry: Record<string, unknown>; moved: MovedSecret[] } {
  const moved: MovedSecret[] = [];
  const claim = (wanted: string, value: string, path: string): string => {
    let variable = wanted;
    for (let n = 2; taken.has(variable) && taken.get(variable) !== value; n++) variable = `${wanted}_${n}`;
    taken.set(variable, value);
    moved.push({ variable, path, value });
    return `\${${variable}}`;
  };
  const out: Record<string, unknown> = { ...entry };
  const base = `mcp_servers.${server}`;
  if (entry.env && typeof entry.env === 'object') {
    out.env = Object.fromEntries(
      Object.entries(entry.env as Record<string, string>).map(([key, value]) => {
        if (PLACEHOLDER.test(value) || value === '' || !(SECRET_KEY.test(key) || looksLikeToken(value))) return [key, value];
        const wanted = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : variableOf(server, 'TOKEN');
        return [key, claim(wanted, value, `${base}.env.${key}`)];
      }),
    );
  }
  if (entry.headers && typeof entry.headers === 'object') {
    out.headers = Object.fromEntries(
      Object.entries(entry.headers as Record<string, string>).map(([key, value]) => {
        if (PLACEHOLDER.test(value)) return [key, value];
        // "Bearer TOKEN" keeps its scheme; the token alone goes to the environment.
        const scheme = /^(Bearer|Basic|Token)\s+(\S+)$/i.exec(value);
        if (scheme) return [key, `${scheme[1]} ${claim(variableOf(server, 'TOKEN'), scheme[2]!, `${base}.headers.${key}`)}`];
        if (!(SECRET_KEY.test(key) || looksLikeToken(value)) || value === '') return [key, value];
        return [key, claim(variableOf(server, 'TOKEN'), value, `${base}.headers.${key}`)];
      }),
    );
  }
  if (Array.isArray(entry.args)) {
    out.args = (entry.args as string[]).map((arg, i) => {
      // --api-key=VALUE, or a bare token.
      const flag = /^(--?[A-Za-z0-9-]*(?:key|token|secret|password)[A-Za-z0-9-]*=)(.+)$/i.exec(arg);
      if (flag && !PLACEHOLDER.test(flag[2]!)) return `${flag[1]}${claim(variableOf(server, 'TOKEN'), flag[2]!, `${base}.args.${i}`)}`;
      return looksLikeToken(arg) && !PLACEHOLDER.test(arg) ? claim(variableOf(server, 'TOKEN'), arg, `${base}.args.${i}`) : arg;
    });
  }
  return { entry: out, moved };
}
