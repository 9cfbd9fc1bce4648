import type { ToolGroup } from '../../tool/define.js';
import { viewAddServer, viewCreate, viewDelete, viewRemoveServer, viewSetExposure, viewSetTools } from './edit.js';
import { viewInstall } from './install.js';
import { viewList, viewShow, viewTools } from './read.js';

export const viewGroupTools = [
  viewCreate,
  viewDelete,
  viewList,
  viewShow,
  viewAddServer,
  viewRemoveServer,
  viewSetTools,
  viewSetExposure,
  viewTools,
  viewInstall,
];

export const viewGroup: ToolGroup = { name: 'view', summary: 'tool views served to clients', tools: viewGroupTools };
