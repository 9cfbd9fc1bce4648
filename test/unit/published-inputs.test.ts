import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computedInputJsonSchema, inputJsonSchema } from '../../src/core/schema.js';
import { allTools } from '../../src/tools/index.js';
import { configShow } from '../../src/tools/config/show.js';

const FILE = new URL('../../src/tools/published-inputs.json', import.meta.url);

describe("mcpkit's own tools' input schemas, made at build time", () => {
  it("are what the tools' zod schemas make now (else: node --import tsx scripts/published-inputs.ts)", () => {
    const made = Object.fromEntries(allTools.map((tool) => [tool.name, computedInputJsonSchema(tool.input)]));
    expect(JSON.parse(readFileSync(FILE, 'utf8'))).toEqual(made);
  });

  it('are given as a fresh copy each time, equal to the one zod makes', () => {
    const first = inputJsonSchema(configShow.input);
    expect(first).toEqual(computedInputJsonSchema(configShow.input));
    (first as { description?: string }).description = 'changed by a caller';
    expect(inputJsonSchema(configShow.input)).not.toHaveProperty('description', 'changed by a caller');
  });
});
