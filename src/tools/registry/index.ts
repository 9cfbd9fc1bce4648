import type { ToolGroup } from '../../tool/define.js';
import { registryAdd } from './add.js';
import { getServer, listServers, listVersions } from './list.js';
import { registrySourceAdd, registrySourceList, registrySourceRemove } from './sources.js';
import { switchTenantId } from './tenant.js';
import { registryOutdated, registryUpdate } from './outdated.js';

export const registryTools = [
  listServers,
  getServer,
  listVersions,
  registryAdd,
  registryOutdated,
  registryUpdate,
  switchTenantId,
  registrySourceAdd,
  registrySourceRemove,
  registrySourceList,
];

export const registryGroup: ToolGroup = { name: 'registry', summary: 'MCP server registries', tools: registryTools };
