import type { ToolGroup } from '../../tool/define.js';
import { filterSet } from './set.js';

export const filterTools = [filterSet];

export const filterGroup: ToolGroup = { name: 'filter', summary: 'include/exclude rules for upstream tools', tools: filterTools };
