import type { ToolGroup } from '../../tool/define.js';
import { configPath } from './path.js';
import { configJsonSchema } from './schema.js';
import { configShow } from './show.js';
import { configValidate } from './validate.js';

export const configTools = [configPath, configShow, configValidate, configJsonSchema];

export const configGroup: ToolGroup = { name: 'config', summary: "mcpkit's config file", tools: configTools };
