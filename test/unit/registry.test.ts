import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { closestNames } from '../../src/core/suggest.js';
import { createRegistry } from '../../src/tool/registry.js';
import { defineTool, type AnyTool } from '../../src/tool/define.js';

const tool = (name: string, id: string): AnyTool =>
  defineTool({
    name,
    group: 'demo',
    command: { id, examples: ['mcpkit demo x'] },
    title: name,
    description: `${name} tool`,
    input: z.strictObject({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async () => ({ ok: true }),
  });

describe('createRegistry', () => {
  it('looks tools up by MCP name and by command id', () => {
    const registry = createRegistry([tool('demo_a', 'demo a'), tool('demo_b', 'demo b')]);
    expect(registry.get('demo_b')?.name).toBe('demo_b');
    expect(registry.byCommandId('demo:a')?.name).toBe('demo_a');
    expect(registry.get('nope')).toBeUndefined();
  });

  it('refuses a duplicate MCP name, naming it', () => {
    expect(() => createRegistry([tool('demo_a', 'demo a'), tool('demo_a', 'demo other')])).toThrow(/Duplicate tool name "demo_a"/);
  });

  it('refuses two tools on one command', () => {
    expect(() => createRegistry([tool('demo_a', 'demo a'), tool('demo_b', 'demo a')])).toThrow(/Duplicate command "demo a"/);
  });
});

describe('defineTool', () => {
  const base = {
    group: 'demo',
    title: 't',
    description: 'd',
    input: z.strictObject({ q: z.string() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async () => null,
  };
  it.each([
    ['a name that is not snake_case', { ...base, name: 'BadName', command: { id: 'demo x', examples: ['x'] } }, /snake_case/],
    ['a command id without a verb', { ...base, name: 'demo_x', command: { id: 'demo', examples: ['x'] } }, /topic verb/],
    ['no example', { ...base, name: 'demo_x', command: { id: 'demo x', examples: [] } }, /example/],
    ['a positional that is not a field', { ...base, name: 'demo_x', command: { id: 'demo x', args: ['nope'], examples: ['x'] } }, /positional argument "nope"/],
  ])('refuses %s', (_what, definition, message) => {
    expect(() => defineTool(definition as never)).toThrow(message);
  });
});

describe('closestNames', () => {
  it.each([
    ['config_shw', ['config_show', 'config_path', 'list_servers'], ['config_show']],
    ['show', ['config_show', 'config_path'], ['config_show']],
    ['zzzzzz', ['config_show', 'config_path'], []],
  ])('%s -> %j', (wanted, names, expected) => {
    expect(closestNames(wanted, names)).toEqual(expected);
  });
});
