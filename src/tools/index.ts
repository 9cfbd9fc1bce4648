import type { AnyTool } from '../core/tool.js';
import { arangoTools } from './arango/index.js';
import { configTools } from './config/index.js';
import { filterTools } from './filter/index.js';
import { registryTools } from './registry/index.js';
import { retrieveTools } from './retrieve/index.js';
import { serverTools } from './server/index.js';
import { viewGroupTools } from './view/index.js';

/** Every built-in tool, group by group; both front ends are generated from this list. */
export const allTools: readonly AnyTool[] = [...configTools, ...serverTools, ...viewGroupTools, ...filterTools, ...retrieveTools, ...registryTools, ...arangoTools];
