import * as z from 'zod';
import { ToolError } from '../../core/errors.js';
import { defineTool } from '../../tool/define.js';
import { adminToolsShown, defaultSourceName, TENANT_ID } from '../../registry/sources.js';
import { editConfigFile } from '../shared/config-access.js';
import { registryField } from './shared.js';

export const switchTenantId = defineTool({
  name: 'switch_tenant_id',
  group: 'registry',
  command: {
    id: 'registry switch-tenant',
    args: ['tenant_id'],
    examples: ['<%= config.bin %> registry switch-tenant acme --registry pulsemcp', '<%= config.bin %> registry switch-tenant ""'],
  },
  title: 'Switch the registry tenant',
  description:
    "Use another tenant (X-Tenant-ID) for a registry: over MCP for the rest of this client's session, in the terminal by writing registry.sources.NAME.tenant_id to the config. An empty tenant clears it.\nAn admin tool: served over MCP only with registry.show_admin_tools: true or SHOW_ADMIN_TOOLS=true.",
  input: z.strictObject({
    tenant_id: z
      .string()
      .max(256, 'tenant_id is at most 256 characters')
      .regex(TENANT_ID, 'tenant_id may only contain letters, digits, "_" and "-"')
      .describe('The tenant; empty to clear.'),
    registry: registryField,
  }),
  createsConfig: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  available: (config, env) => adminToolsShown(config.registry, env),
  async run(input, ctx) {
    const config = await ctx.config();
    if (!adminToolsShown(config.registry, ctx.env)) {
      throw new ToolError('FORBIDDEN', 'switch_tenant_id is an admin tool and admin tools are off.', {
        hint: 'Set registry.show_admin_tools: true in the config, or SHOW_ADMIN_TOOLS=true.',
      });
    }
    const registry = input.registry ?? defaultSourceName(config.registry, ctx.env);
    const tenant = input.tenant_id === '' ? null : input.tenant_id;
    // An agent switches for its own session; a person at a terminal, where a command is over at
    // once, means it to last, so it is saved.
    if (ctx.surface === 'mcp') {
      ctx.session.tenants.set(registry, input.tenant_id);
      return { registry, tenant_id: tenant, scope: 'session' as const };
    }
    const { path } = await editConfigFile(ctx, (doc) => {
      if (tenant === null) doc.deleteIn(['registry', 'sources', registry, 'tenant_id']);
      else doc.setIn(['registry', 'sources', registry, 'tenant_id'], tenant);
    });
    return { registry, tenant_id: tenant, scope: 'config' as const, config: path };
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Registry ${r.registry}: ${r.tenant_id === null ? 'no tenant' : `tenant ${r.tenant_id}`}${r.scope === 'config' ? ` (saved in ${r.config})` : ' for this session'}`,
});
