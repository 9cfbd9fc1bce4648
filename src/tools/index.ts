import type { AnyTool, ToolGroup } from '../tool/define.js';
import { arangoGroup } from './arango/index.js';
import { codeGroup } from './code/index.js';
import { configGroup } from './config/index.js';
import { filterGroup } from './filter/index.js';
import { registryGroup } from './registry/index.js';
import { retrieveGroup } from './retrieve/index.js';
import { serverGroup } from './server/index.js';
import { viewGroup } from './view/index.js';

/** Every group of built-in tools; both front ends are generated from these. */
export const toolGroups: readonly ToolGroup[] = [configGroup, serverGroup, viewGroup, filterGroup, retrieveGroup, registryGroup, arangoGroup, codeGroup];

export const allTools: readonly AnyTool[] = toolGroups.flatMap((g) => g.tools);
