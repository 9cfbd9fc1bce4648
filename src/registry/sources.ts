import { unsetVariableIn } from '../config/check/value-check.js';
import { ToolError } from '../core/errors.js';
import { notFound } from '../core/suggest.js';
import type { RegistryEndpoint } from './client.js';

/**
 * Which registry a call goes to. Two are built in: `official` (the public MCP registry, no key)
 * and `pulsemcp` (PulseMCP's sub-registry; key and tenant from PULSEMCP_SUBREGISTRY_API_KEY and
 * PULSEMCP_SUBREGISTRY_TENANT_ID, the variables PulseMCP's own server reads). `registry.sources` adds more or overrides
 * these; `registry.default` picks one, else `pulsemcp` when its key is set (users of PulseMCP's server set
 * only that), else `official`. Pure.
 */
export const BUILTIN_SOURCES: Readonly<Record<string, { url: string; keyEnv?: string; tenantEnv?: string }>> = {
  official: { url: 'https://registry.modelcontextprotocol.io' },
  pulsemcp: { url: 'https://api.pulsemcp.com', keyEnv: 'PULSEMCP_SUBREGISTRY_API_KEY', tenantEnv: 'PULSEMCP_SUBREGISTRY_TENANT_ID' },
};

export interface RegistrySettings {
  default?: string;
  sources?: Record<string, { url?: string; api_key?: string; tenant_id?: string }>;
  timeout_ms?: number;
  retries?: number;
  show_admin_tools?: boolean;
}

export interface ChosenSource extends RegistryEndpoint {
  name: string;
}

export function sourceNames(settings: RegistrySettings): string[] {
  return [...new Set([...Object.keys(BUILTIN_SOURCES), ...Object.keys(settings.sources ?? {})])];
}

export function defaultSourceName(settings: RegistrySettings, env: NodeJS.ProcessEnv): string {
  return settings.default ?? (env.PULSEMCP_SUBREGISTRY_API_KEY ? 'pulsemcp' : 'official');
}

/** `tenantOverride` is a tenant the client switched to for its session (switch_tenant_id); '' sends none. */
export function chooseSource(settings: RegistrySettings, env: NodeJS.ProcessEnv, requested?: string, tenantOverride?: string): ChosenSource {
  const name = requested ?? defaultSourceName(settings, env);
  const builtin = BUILTIN_SOURCES[name];
  const configured = settings.sources?.[name];
  if (!builtin && !configured) {
    throw notFound('registry', name, sourceNames(settings), 'Add it under registry.sources in the config.');
  }
  const url = configured?.url ?? builtin?.url;
  if (!url) throw new ToolError('CONFIG_INVALID', `Registry "${name}" has no url.`, { hint: `Set registry.sources.${name}.url in the config.` });
  const apiKey = configured?.api_key ?? (builtin?.keyEnv ? env[builtin.keyEnv] : undefined);
  const tenantId = tenantOverride ?? configured?.tenant_id ?? (builtin?.tenantEnv ? env[builtin.tenantEnv] : undefined);
  return { name, url, ...(apiKey ? { apiKey } : {}), ...(tenantId ? { tenantId } : {}) };
}

export function adminToolsShown(settings: RegistrySettings, env: NodeJS.ProcessEnv): boolean {
  return settings.show_admin_tools === true || env.SHOW_ADMIN_TOOLS === 'true';
}

export const TENANT_ID = /^[a-zA-Z0-9_-]*$/;

/**
 * Why a registry source set aside for its problems (McpkitConfig.unusable, "path: message" lines)
 * cannot be used, naming the source and, for an unset variable, the variable and the field that
 * uses it: a shell without that registry's key loses that registry alone. Pure.
 */
export function setAsideSource(name: string, lines: readonly string[], isDefault: boolean): ToolError {
  const unset = lines.flatMap((line) => {
    const [path = '', message = ''] = splitOnce(line, ': ');
    const variable = unsetVariableIn(message);
    return variable ? [{ field: path.split('.').slice(3).join('.') || path, variable }] : [];
  });
  const role = isDefault ? ' (the default registry, registry.default)' : '';
  const fix = `or change it: mcpkit registry source add ${name} URL --api-key '\${VAR}' --force, or remove it: mcpkit registry source remove ${name}`;
  const details = { registry: name, problems: lines };
  if (unset.length === lines.length && unset.length > 0) {
    const variables = [...new Set(unset.map((u) => u.variable))];
    const uses = unset.map((u) => `its ${u.field} uses \${${u.variable}}`).join(', ');
    return new ToolError(
      'CONFIG_INVALID',
      `Registry source "${name}"${role} needs ${variables.join(' and ')} (${uses}), which ${variables.length > 1 ? 'are' : 'is'} not set.`,
      {
        details: { ...details, variables },
        hint: `Set ${variables.join(' and ')} in the environment mcpkit runs in, name another registry with --registry, ${fix}.`,
      },
    );
  }
  return new ToolError('CONFIG_INVALID', `Registry source "${name}"${role} cannot be used:\n${lines.map((l) => `  ${l}`).join('\n')}`, {
    details,
    hint: `Fix it in the config ("mcpkit config validate" lists every problem), name another registry with --registry, ${fix}.`,
  });
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}
