import * as z from 'zod';
import { defineTool, READ_ONLY } from '../../tool/define.js';
import { adminToolsShown, BUILTIN_SOURCES, defaultSourceName } from '../../registry/sources.js';
import { editConfigFile } from '../shared/config-access.js';
import { isHttpUrl } from '../../config/schema/schema.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const ADMIN = '\nAn admin tool: served over MCP only with registry.show_admin_tools: true or SHOW_ADMIN_TOOLS=true.';
const available = (config: { registry: { show_admin_tools?: boolean } }, env: NodeJS.ProcessEnv) => adminToolsShown(config.registry, env);

export const registrySourceAdd = defineTool({
  name: 'registry_source_add',
  group: 'registry',
  command: {
    id: 'registry source add',
    args: ['name', 'url'],
    examples: [
      '<%= config.bin %> registry source add mine https://registry.example.com',
      "<%= config.bin %> registry source add corp https://mcp.corp.example --api-key '${CORP_REGISTRY_KEY}' --default",
    ],
  },
  title: 'Add a registry',
  description: `Name a registry by its URL in the config (registry.sources.NAME), so that --registry NAME reaches it; --default makes it the one used when a command names none. An existing name is refused unless --force.${ADMIN}`,
  input: z.strictObject({
    name: z.string().regex(NAME, 'registry names use letters, digits, "_", "-" and "." and start with a letter or digit').describe('The name to give it.'),
    url: z
      .string()
      .refine((value) => value.includes('${') || isHttpUrl(value), 'url must be an http(s) URL, e.g. https://registry.example.com')
      .describe('Its base URL (the API lives under /v0.1).'),
    api_key: z.string().min(1).optional().describe('Sent as X-API-Key. Write a ${VAR} (quoted in the shell) to keep the key in the environment.'),
    tenant_id: z.string().min(1).optional().describe('Sent as X-Tenant-ID.'),
    default: z.boolean().default(false).describe('Use it when a command names no registry (registry.default).'),
    force: z.boolean().default(false).describe('Replace a registry of the same name.'),
  }),
  createsConfig: true,
  hostAccess: 'config',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  available,
  async run(input, ctx) {
    const { addRegistrySource } = await import('../../config/edits/registry-edit.js');
    const entry = { url: input.url, ...(input.api_key ? { api_key: input.api_key } : {}), ...(input.tenant_id ? { tenant_id: input.tenant_id } : {}) };
    const { value, path } = await editConfigFile(ctx, (doc) => addRegistrySource(doc, input.name, entry, { force: input.force, makeDefault: input.default }));
    return {
      registry: input.name,
      url: input.url,
      replaced: value.replaced,
      default: input.default,
      // A key written as it is sits in the file for anyone who reads it.
      literal_key: input.api_key !== undefined && !input.api_key.includes('${'),
      config: path,
    };
  },
  render: (r, ui) =>
    [
      `${ui.color.green('✓')} ${r.replaced ? 'Replaced' : 'Added'} registry ${r.registry} (${r.url}) in ${r.config}${r.default ? '; it is now the default' : ''}`,
      ...(r.literal_key ? [ui.color.yellow("  The API key is written in the file as given; '${VAR}' keeps it in the environment instead.")] : []),
      `  Try it: mcpkit registry list --registry ${r.registry}`,
    ].join('\n'),
});

export const registrySourceRemove = defineTool({
  name: 'registry_source_remove',
  group: 'registry',
  command: { id: 'registry source remove', args: ['name'], examples: ['<%= config.bin %> registry source remove mine'] },
  title: 'Remove a registry',
  description: `Remove a registry from the config (registry.sources.NAME); when it was the default, the built-in choice applies again.${ADMIN}`,
  input: z.strictObject({ name: z.string().min(1).describe('The registry to remove.') }),
  hostAccess: 'config',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  available,
  async run(input, ctx) {
    const { removeRegistrySource } = await import('../../config/edits/registry-edit.js');
    const { value, path } = await editConfigFile(ctx, (doc) => removeRegistrySource(doc, input.name));
    return { registry: input.name, was_default: value.wasDefault, config: path };
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Removed registry ${r.registry} from ${r.config}${r.was_default ? '; the default is the built-in choice again' : ''}`,
});

export const registrySourceList = defineTool({
  name: 'registry_source_list',
  group: 'registry',
  command: { id: 'registry source list', examples: ['<%= config.bin %> registry source list', '<%= config.bin %> registry source list --json'] },
  title: 'List the registries',
  description: `The registries --registry can name: the built-in official and pulsemcp, and those of registry.sources, with their URLs, whether a key and tenant are set (never the key), and which is the default.${ADMIN}`,
  input: z.strictObject({}),
  annotations: READ_ONLY,
  available,
  async run(_input, ctx) {
    const [config, { requireUsable }] = await Promise.all([ctx.config(), import('../../config/check/problems.js')]);
    // A section set aside (an unset ${VAR}) is said, not listed as if it were empty.
    requireUsable(config, 'registry');
    const settings = config.registry;
    const chosen = defaultSourceName(settings, ctx.env);
    // A source set aside for its own problems (an unset ${VAR} in its entry) is listed with them.
    const setAside = (name: string) => config.unusable?.[`registry.sources.${name}`];
    const unusableNames = Object.keys(config.unusable ?? {}).flatMap((unit) => (unit.startsWith('registry.sources.') ? [unit.slice(17)] : []));
    const names = [...new Set([...Object.keys(BUILTIN_SOURCES), ...Object.keys(settings.sources ?? {}), ...unusableNames])];
    const registries = names.map((name) => {
      const problems = setAside(name);
      if (problems) return { name, url: null, source: 'config', api_key: null, tenant_id: null, default: name === chosen, problems: [...problems] };
      const builtin = BUILTIN_SOURCES[name];
      const configured = settings.sources?.[name];
      const keyFrom = configured?.api_key !== undefined ? 'config' : builtin?.keyEnv && ctx.env[builtin.keyEnv] ? builtin.keyEnv : null;
      const tenant = configured?.tenant_id ?? (builtin?.tenantEnv ? ctx.env[builtin.tenantEnv] : undefined) ?? null;
      return {
        name,
        url: configured?.url ?? builtin?.url ?? null,
        source: configured ? (builtin ? 'config (overrides the built-in one)' : 'config') : 'built in',
        api_key: keyFrom,
        tenant_id: tenant,
        default: name === chosen,
      };
    });
    return { registries, default: chosen };
  },
  render: (r, ui) =>
    ui.table(
      r.registries.map((s) => ({
        NAME: `${s.name}${s.default ? ' (default)' : ''}`,
        URL: s.url ?? '-',
        KEY: s.api_key ?? '-',
        TENANT: s.tenant_id ?? '-',
        FROM: 'problems' in s && s.problems ? ui.color.yellow(`cannot be used: ${s.problems.join('; ')}`) : s.source,
      })),
    ),
});
