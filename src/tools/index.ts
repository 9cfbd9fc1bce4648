import { knownInputJsonSchema, type JsonSchema } from '../core/schema.js';
import type { AnyTool, ToolGroup } from '../tool/define.js';
import published from './published-inputs.json' with { type: 'json' };
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

// Each tool's published input schema, made at build time (scripts/published-inputs.ts): zod's
// toJSONSchema for them all took ~90 ms of a serve's first listing. test/unit/published-inputs.test.ts
// holds the file equal to what the tools' zod schemas make; a tool it lacks is made as before.
for (const tool of allTools) {
  const json = (published as unknown as Record<string, JsonSchema | undefined>)[tool.name];
  if (json) knownInputJsonSchema(tool.input, json);
}
