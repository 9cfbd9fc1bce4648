import { ToolError } from '../core/errors.js';
import { literalText } from '../config/secrets/interpolate.js';
import { declaredName, plainDefault, variableForHeader, type DeclaredVariable } from './install.js';

/**
 * An MCP bundle's manifest.json (the mcpb format's MANIFEST.md) turned into a config entry: its
 * `server.mcp_config` command, args and env, with the format's substitutions made: `${__dirname}`
 * the folder it was unpacked to, `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}` under the
 * home folder, `${/}` and `${pathSeparator}` "/", and each `${user_config.KEY}` a `${VAR}`
 * reference of the config (api_key: ${API_KEY}, named as header variables are), declared as a
 * variable to set. Any other `${...}` in it is the bundle's own text, written so that mcpkit never
 * fills it in from its environment: a bundle reads only the variables it declares. Pure.
 */
export interface BundleManifest {
  name?: string;
  version?: string;
  description?: string;
  server?: { type?: string; entry_point?: string; mcp_config?: { command?: string; args?: unknown[]; env?: Record<string, unknown> } };
  user_config?: Record<
    string,
    { type?: string; title?: string; description?: string; required?: boolean; sensitive?: boolean; default?: unknown; multiple?: boolean }
  >;
}

const HOME_FOLDERS: Record<string, string> = { HOME: '${HOME}', DESKTOP: '${HOME}/Desktop', DOCUMENTS: '${HOME}/Documents', DOWNLOADS: '${HOME}/Downloads' };

export function bundleEntry(manifest: BundleManifest, dir: string): { entry: Record<string, unknown>; variables: DeclaredVariable[] } {
  const config = manifest.server?.mcp_config;
  if (!config?.command) {
    throw new ToolError('INVALID_INPUT', "The bundle's manifest.json has no server.mcp_config.command: mcpkit cannot tell how to start it.", {
      hint: 'The bundle is for a host that manages its execution; add the server by hand with mcpkit server add.',
    });
  }
  const used = new Set<string>();
  // Only the format's own substitutions become references; the rest of the text is data (config/secrets/interpolate.ts literalText).
  const substitute = (text: string): string => {
    let out = '';
    let last = 0;
    for (const m of text.matchAll(/\$\{([^}]+)\}/g)) {
      out += literalText(text.slice(last, m.index)) + substitution(m[0], m[1]!);
      last = m.index + m[0].length;
    }
    return out + literalText(text.slice(last));
  };
  const substitution = (whole: string, name: string): string => {
    if (name === '__dirname') return literalText(dir);
    if (name === '/' || name === 'pathSeparator') return '/';
    if (HOME_FOLDERS[name]) return HOME_FOLDERS[name]!;
    const key = /^user_config\.(.+)$/.exec(name)?.[1];
    if (key !== undefined) {
      used.add(key);
      const spec = manifest.user_config?.[key];
      const given =
        typeof spec?.default === 'string'
          ? substitute(spec.default)
          : typeof spec?.default === 'number' || typeof spec?.default === 'boolean'
            ? String(spec.default)
            : undefined;
      // A default is taken as it is, so only plain text can be one ("}" would end it early).
      const fallback = given !== undefined && plainDefault(given) ? given : undefined;
      const variable = declaredName(variableForHeader(key));
      return fallback !== undefined ? `\${${variable}:-${fallback}}` : spec?.required ? `\${${variable}}` : `\${${variable}:-}`;
    }
    // Anything else is the bundle's text, not a variable of mcpkit's environment: kept as written.
    return literalText(whole);
  };
  const args = (config.args ?? []).map((a) => substitute(String(a)));
  const env = Object.fromEntries(Object.entries(config.env ?? {}).map(([k, v]) => [k, substitute(String(v))]));
  const variables: DeclaredVariable[] = [...used].map((key) => {
    const spec = manifest.user_config?.[key] ?? {};
    return {
      name: variableForHeader(key),
      required: spec.required === true && spec.default === undefined,
      secret: spec.sensitive === true,
      ...(spec.description || spec.title ? { description: spec.description ?? spec.title } : {}),
    };
  });
  const entry = {
    ...(manifest.description ? { description: literalText(manifest.description) } : {}),
    command: substitute(config.command),
    args,
    ...(Object.keys(env).length ? { env } : {}),
    cwd: dir,
  };
  return { entry, variables };
}
