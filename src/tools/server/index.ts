import type { ToolGroup } from '../../tool/define.js';
import { serverAdd, serverDisable, serverEnable, serverRenameTool, serverSetDescription, serverSetTools } from './edit.js';
import { serverRemove, serverRename } from './remove.js';
import { serverImport, serverTest } from './probe.js';
import { serverLogin, serverLogout } from './login.js';
import { serverList, serverShow } from './read.js';
import { serverDiff } from './pins.js';
import { serverApprove } from './approve.js';
import { serverScan } from './scan.js';

export const serverTools = [
  serverAdd,
  serverRemove,
  serverRename,
  serverList,
  serverShow,
  serverEnable,
  serverDisable,
  serverSetTools,
  serverSetDescription,
  serverRenameTool,
  serverTest,
  serverDiff,
  serverApprove,
  serverScan,
  serverImport,
  serverLogin,
  serverLogout,
];

export const serverGroup: ToolGroup = { name: 'server', summary: 'the upstream MCP servers in the config', tools: serverTools };
