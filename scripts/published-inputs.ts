// Writes src/tools/published-inputs.json: the JSON Schema each of mcpkit's own tools publishes for
// its input, as core/schema.ts's computedInputJsonSchema makes it from the tool's zod schema. zod's
// toJSONSchema for all of them cost ~90 ms of every serve's first listing; read from this file it is
// a look-up. test/unit/published-inputs.test.ts fails whenever the file and the schemas differ.
// Usage: node --import tsx scripts/published-inputs.ts
import { writeFileSync } from 'node:fs';
import { computedInputJsonSchema } from '../src/core/schema.js';
import { allTools } from '../src/tools/index.js';

const schemas = Object.fromEntries(allTools.map((tool) => [tool.name, computedInputJsonSchema(tool.input)]));
writeFileSync(new URL('../src/tools/published-inputs.json', import.meta.url), `${JSON.stringify(schemas, null, 2)}\n`);
