import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema/schema.js';
import { DEFAULT_POLICY, type Policy } from '../../src/tool/context.js';
import { defineTool, READ_ONLY, type AnyTool, type ToolAnnotations } from '../../src/tool/define.js';
import { applyPolicy, keepUnderReadOnly } from '../../src/tool/policy.js';

const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

const tool = (name: string, group: string, annotations: ToolAnnotations, extra: Partial<AnyTool> = {}): AnyTool =>
  defineTool({
    name,
    group,
    command: { id: `${group} ${name.replace(/_/g, '-')}`, examples: ['mcpkit x'] },
    title: name,
    description: name,
    input: z.strictObject({}),
    annotations,
    run: async () => null,
    ...extra,
  });

const reader = tool('reader', 'a', READ_ONLY);
const writer = tool('writer', 'a', WRITE);
const guarded = tool('guarded', 'b', WRITE, { enforcesReadOnly: true });
const admin = tool('admin', 'b', READ_ONLY, { available: (_c, env) => env.ADMIN === '1' });
const ALL = [reader, writer, guarded, admin];
const config = configSchema.parse({});

describe('applyPolicy', () => {
  const cases: [string, Policy, NodeJS.ProcessEnv, string[]][] = [
    ['no policy: everything available', DEFAULT_POLICY, {}, ['reader', 'writer', 'guarded']],
    ['available() decides per config and environment', DEFAULT_POLICY, { ADMIN: '1' }, ['reader', 'writer', 'guarded', 'admin']],
    ['read-only: writers leave, a writer that enforces it stays', { readOnly: true }, {}, ['reader', 'guarded']],
    ['groups: only those', { readOnly: false, groups: ['b'] }, { ADMIN: '1' }, ['guarded', 'admin']],
    ['groups and read-only combine', { readOnly: true, groups: ['a'] }, {}, ['reader']],
    ['an empty group list serves none', { readOnly: false, groups: [] }, {}, []],
  ];
  it.each(cases)('%s', (_what, policy, env, names) => {
    expect(applyPolicy(ALL, policy, config, env).map((t) => t.name)).toEqual(names);
  });

  it('publishes a writer that enforces read-only as a reader, under read-only only', () => {
    const [kept] = applyPolicy([guarded], { readOnly: true }, config, {});
    expect(kept!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(guarded.annotations.readOnlyHint).toBe(false); // the definition itself is untouched
    expect(applyPolicy([guarded], { readOnly: true }, config, {})[0]).toBe(kept); // one copy, built once
    expect(applyPolicy([guarded], DEFAULT_POLICY, config, {})[0]).toBe(guarded);
  });

  it.each([
    ['no ArangoDB named: not featured', {}, {}, undefined],
    ['arango section: featured', { arango: { url: 'http://db:8529' } }, {}, 9],
    ['ARANGO_URL: featured', {}, { ARANGO_URL: 'http://db:8529' }, 9],
  ])('the real arango_query is featured only where an ArangoDB is named: %s', async (_what, section, env, featured) => {
    const { arangoQuery } = await import('../../src/tools/arango/query.js');
    const [published] = applyPolicy([arangoQuery], DEFAULT_POLICY, configSchema.parse(section), env);
    expect(published!.featured).toBe(featured);
    expect(published!.name).toBe('arango_query');
    const [underReadOnly] = applyPolicy([arangoQuery], { readOnly: true }, configSchema.parse(section), env);
    expect(underReadOnly!.annotations.readOnlyHint).toBe(true); // it enforces read-only itself, featured or not
    expect(underReadOnly!.featured).toBe(featured);
  });

  it('refuses enforcesReadOnly on a tool that is already read-only (it would mean nothing)', () => {
    expect(() => tool('odd', 'a', READ_ONLY, { enforcesReadOnly: true })).toThrow(/enforcesReadOnly is for writers only/);
  });
});

describe('keepUnderReadOnly (upstream tools)', () => {
  it.each([
    [{ readOnlyHint: true }, true],
    [{ readOnlyHint: false }, false],
    [{}, false], // MCP's default for a missing hint is false
    [undefined, false],
  ])('%j -> %s', (annotations, kept) => {
    expect(keepUnderReadOnly(annotations)).toBe(kept);
  });
});
