import * as z from 'zod';
import { CONFIG_WRITE, defineTool } from '../../tool/define.js';
import type { ToolContext } from '../../tool/context.js';
import { editConfigFile } from '../shared/config-access.js';

/**
 * Removing and renaming a server. Its tool pins (the lock file beside the config) go with it: a
 * different server added later under the old name must not inherit the approvals of this one,
 * and a renamed one keeps them.
 */

const serverName = z.string().min(1).describe('Name of the server in the config (mcp_servers.NAME).');

/** Moves a server's pins of every kind to its new name after its config entry was renamed; how many tool pins moved. */
async function movePins(ctx: ToolContext, configPath: string, from: string, to: string): Promise<number> {
  const { pinFilePath, updatePins, sectionOf } = await import('../../config/files/pin-file.js');
  let moved = 0;
  await updatePins(pinFilePath(configPath), (pins) => {
    let changed = false;
    for (const kind of ['tools', 'prompts', 'resources', 'resource_templates'] as const) {
      const section = sectionOf(pins, kind);
      const own = section[from];
      // Pins left under the new name by a server removed long ago are not this server's.
      const stale = section[to] !== undefined;
      if (!own && !stale) continue;
      changed = true;
      if (kind === 'tools') moved = Object.keys(own ?? {}).length;
      delete section[from];
      if (own) section[to] = own;
      else delete section[to];
    }
    const sets = pins.capability_sets;
    if (sets && (sets[from] || sets[to])) {
      const own = sets[from];
      delete sets[from];
      if (own) sets[to] = own;
      else delete sets[to];
      changed = true;
    }
    return changed;
  }).catch((error: Error) => ctx.waiting?.(`tool pins: cannot update the lock file: ${error.message}`));
  return moved;
}

export const serverRemove = defineTool({
  name: 'server_remove',
  group: 'server',
  command: { id: 'server remove', args: ['name'], aliases: ['server rm'], examples: ['<%= config.bin %> server remove everything'] },
  title: 'Remove an upstream MCP server',
  description: 'Remove an upstream server from the config, and its approved tool definitions from the lock file beside it.',
  input: z.strictObject({ name: serverName }),
  annotations: { ...CONFIG_WRITE, destructiveHint: true, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { removeServer } = await import('../../config/edits/servers-edit.js');
    // Its pins go with the edit (editConfigFile), before the config is written.
    const { path, pinsDropped } = await editConfigFile(ctx, (doc) => removeServer(doc, input.name));
    return { server: input.name, removed: true, config: path, pins_removed: pinsDropped[input.name] ?? 0 };
  },
  render: (r, ui) => `${ui.color.green('✓')} Removed server ${r.server} from ${r.config}${r.pins_removed ? ` (and its ${r.pins_removed} approved tools)` : ''}`,
});

export const serverRename = defineTool({
  name: 'server_rename',
  group: 'server',
  command: { id: 'server rename', args: ['name', 'to'], aliases: ['server mv'], examples: ['<%= config.bin %> server rename gh github'] },
  title: 'Rename an upstream MCP server',
  description:
    "Rename a server in the config and in every view that lists it; its approved tool definitions move with it. Its tools are then published under the new name's prefix (NEW__tool).",
  input: z.strictObject({ name: serverName, to: z.string().min(1).describe('The new name.') }),
  annotations: { ...CONFIG_WRITE, destructiveHint: false, idempotentHint: false },
  hostAccess: 'config',
  async run(input, ctx) {
    const { renameServer } = await import('../../config/edits/servers-edit.js');
    const { value: views, path } = await editConfigFile(ctx, (doc) => renameServer(doc, input.name, input.to));
    const pins = await movePins(ctx, path, input.name, input.to);
    return { server: input.name, to: input.to, config: path, views, pins_moved: pins };
  },
  render: (r, ui) =>
    `${ui.color.green('✓')} Renamed server ${r.server} to ${r.to} in ${r.config}${r.views.length ? ` and in the views ${r.views.join(', ')}` : ''}${r.pins_moved ? `; its ${r.pins_moved} approved tools moved with it` : ''}`,
});
