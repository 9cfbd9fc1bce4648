import { describe, expect, it } from 'vitest';
import { accessPath, declarationsOf, memberName, toolMember, typeOf } from '../../src/code/declarations.js';

describe('typeOf: the TypeScript type a JSON Schema describes', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'integer' }, 'number'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ enum: ['a', 'b', 1] }, '"a" | "b" | 1'],
    [{ const: 'x' }, '"x"'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [
      { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object' }] },
      '{\n  a: string;\n} & Record<string, unknown>',
    ],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { type: ['string', 'number'] } }, '(string | number)[]'],
    [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, '[string, number]'],
    [{ type: 'array' }, 'unknown[]'],
    [{ type: 'object' }, 'Record<string, unknown>'],
    [{ type: 'object', additionalProperties: false }, '{}'],
    [{ type: 'object', additionalProperties: { type: 'number' } }, '{\n  [key: string]: number;\n}'],
    [
      { type: 'object', properties: { 'a-b': { type: 'boolean', description: 'Say */ no', default: true } } },
      '{\n  /**\n   * Say *\\/ no\n   * Default: true\n   */\n  "a-b"?: boolean;\n}',
    ],
    [{}, 'unknown'],
    [true, 'unknown'],
    [false, 'never'],
  ])('%j', (schema, want) => {
    expect(typeOf(schema)).toBe(want);
  });

  it('follows local $refs, and writes a recursive one unknown with a note where it refers back to a type it is inside', () => {
    const schema = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' };
    expect(typeOf(schema)).toBe('{\n  next?: unknown /* cut: recursive $ref "#/$defs/node" */;\n}');
    const list = { $defs: { item: { type: 'object', properties: { label: { type: 'string' } } } }, type: 'array', items: { $ref: '#/$defs/item' } };
    expect(typeOf(list)).toBe('{\n  label?: string;\n}[]');
  });
});

describe('names as a script writes them', () => {
  it.each([
    ['echo', 'echo', 'tools.everything.echo'],
    ['get-sum', '"get-sum"', 'tools.everything["get-sum"]'],
    ['1st', '"1st"', 'tools.everything["1st"]'],
  ])('%s', (name, member, path) => {
    expect(memberName(name)).toBe(member);
    expect(accessPath('everything', name)).toBe(path);
  });
});

describe('declarationsOf: tools as a script calls them', () => {
  const sum = {
    group: 'everything',
    name: 'get-sum',
    published: 'everything__get-sum',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number', description: 'First' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] },
  };
  it('a tool: its description, its typed parameters (with their descriptions), its result type (without)', () => {
    expect(
      toolMember({ ...sum, outputSchema: { type: 'object', properties: { result: { type: 'number', description: 'The sum' } }, required: ['result'] } }),
    ).toBe('/** Adds two numbers. */\n"get-sum"(args: {\n  /** First */\n  a: number;\n  b: number;\n}): Promise<{\n  result: number;\n}>;');
  });
  it('a tool without an outputSchema gives unknown; args are optional where nothing is required', () => {
    expect(toolMember({ group: 'memory', name: 'read_graph', published: 'memory__read_graph', inputSchema: { type: 'object', properties: {} } })).toBe(
      'read_graph(args?: Record<string, unknown>): Promise<unknown>;',
    );
  });
  it('the whole of tools, by group; what an untyped result gives is said once', () => {
    const typed = declarationsOf([sum]);
    expect(typed.startsWith('declare const tools: {\n  everything: {\n    /**')).toBe(true);
    const text = declarationsOf([sum, { group: 'memory', name: 'read_graph', published: 'memory__read_graph' }]);
    expect(text.startsWith('// A tool without a result type gives its text')).toBe(true);
    expect(text.match(/without a result type/g)).toHaveLength(1);
    expect(text).toContain('  memory: {\n');
    expect(text.endsWith('};\n')).toBe(true);
  });
});
