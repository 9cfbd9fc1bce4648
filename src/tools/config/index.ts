import type { ToolGroup } from '../../tool/define.js';
import { compositeAdd, compositeList, compositeRemove, compositeShow } from './composites.js';
import { hooksClear, hooksSet, hooksShow } from './hooks.js';
import { configPath } from './path.js';
import { configJsonSchema } from './schema.js';
import { configShow } from './show.js';
import { configValidate } from './validate.js';

export const configTools = [
  configPath,
  configShow,
  configValidate,
  configJsonSchema,
  compositeList,
  compositeShow,
  compositeAdd,
  compositeRemove,
  hooksShow,
  hooksSet,
  hooksClear,
];

export const configGroup: ToolGroup = { name: 'config', summary: "mcpkit's config file", tools: configTools };
