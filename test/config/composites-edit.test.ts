import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { compositeFromWords, removeComposite, setComposite, setHooks, type CompositeWords } from '../../src/config/edits/composites-edit.js';
import { configSchema } from '../../src/config/schema/schema.js';
import { codeOf } from '../helpers/errors.js';

const words = (more: Partial<CompositeWords>): CompositeWords => ({ steps: [], parallel: false, args: [], inputs: [], ...more });

describe('a composite from command-line words', () => {
  it.each([
    [
      'a chain, step names given and defaulted',
      words({ steps: ['find=search', 'memory.create_entities'], args: ['create_entities={"x":"{steps.find.result}"}'] }),
      {
        chain: [
          { name: 'find', tool: 'search' },
          { name: 'create_entities', tool: 'memory.create_entities', args: { x: '{steps.find.result}' } },
        ],
      },
    ],
    [
      'parallel, with inputs and a description',
      words({ steps: ['a=gh.search', 'b=search'], parallel: true, args: ['a={"q":"{inputs.q}"}'], inputs: ['q', 'n:integer'], description: 'Both' }),
      {
        description: 'Both',
        inputs: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q', 'n'] },
        parallel: { a: { tool: 'gh.search', args: { q: '{inputs.q}' } }, b: { tool: 'search' } },
      },
    ],
    ['a tool name with a dot in it keeps a clean step name', words({ steps: ['srv.get.thing'] }), { chain: [{ name: 'get_thing', tool: 'srv.get.thing' }] }],
  ])('%s', (_what, input, expected) => {
    const entry = compositeFromWords(input);
    expect(entry).toEqual(expected);
    // What is written is what the config's schema takes.
    expect(configSchema.safeParse({ composite_tools: { c: entry } }).success).toBe(true);
  });

  it.each([
    ['no step', words({}), 'at least one step'],
    ['a step without a tool', words({ steps: ['a='] }), 'names no tool'],
    ['a bad step name', words({ steps: ['a b=search'] }), 'may hold only letters'],
    ['two steps of one name', words({ steps: ['search', 'search'] }), 'Two steps are named "search"'],
    ['--args of no step', words({ steps: ['a=search'], args: ['b={}'] }), 'names no step "b"'],
    ['--args that is not JSON', words({ steps: ['a=search'], args: ['a={q:1}'] }), 'are not JSON'],
    ['--args that is not an object', words({ steps: ['a=search'], args: ['a=[1]'] }), 'must be a JSON object'],
    ['--args twice for a step', words({ steps: ['a=search'], args: ['a={}', 'a={}'] }), 'given --args twice'],
    ['an input of no type', words({ steps: ['search'], inputs: ['q:text'] }), '"text" is not a JSON Schema type'],
    [
      'a placeholder of an undeclared input',
      words({ steps: ['a=search'], args: ['a={"q":"{inputs.query}"}'], inputs: ['q'] }),
      '{inputs.query}, which is not an input',
    ],
    ['a chain step using a later one', words({ steps: ['a=search', 'b=search'], args: ['a={"q":"{steps.b.result}"}'] }), 'has not run before it'],
    [
      'a parallel step using another',
      words({ steps: ['a=search', 'b=search'], parallel: true, args: ['b={"q":"{steps.a.result}"}'] }),
      'parallel steps cannot use',
    ],
  ])('refuses %s', (_what, input, words) => {
    expect(codeOf(() => compositeFromWords(input))).toBe('INVALID_INPUT');
    expect(() => compositeFromWords(input)).toThrow(words);
  });
});

describe('composite and hook edits on the YAML document', () => {
  const BASE = '# ours\nmcp_servers: {}\ntool_views:\n  r:\n    tools: [lookup]\n';
  const entry = { chain: [{ name: 'a', tool: 'search' }] };

  it('adds a composite, refuses a second of the name unless forced, and keeps comments', () => {
    const doc = parseDocument(BASE);
    expect(setComposite(doc, 'lookup', entry, { force: false })).toEqual({ replaced: false });
    expect(codeOf(() => setComposite(doc, 'lookup', entry, { force: false }))).toBe('CONFLICT');
    expect(setComposite(doc, 'lookup', { chain: [{ name: 'b', tool: 'search' }] }, { force: true })).toEqual({ replaced: true });
    expect(doc.toString()).toContain('# ours');
    expect(doc.toJSON().composite_tools.lookup.chain[0].name).toBe('b');
  });

  it('refuses to remove a composite a view names, or one that does not exist (with the closest names); removes the section when it empties', () => {
    const doc = parseDocument(BASE);
    setComposite(doc, 'lookup', entry, { force: false });
    expect(codeOf(() => removeComposite(doc, 'lookup'))).toBe('CONFLICT');
    expect(() => removeComposite(doc, 'lookup')).toThrow('The view r names the composite tool "lookup" in tools.');
    expect(codeOf(() => removeComposite(doc, 'lokup'))).toBe('NOT_FOUND');
    doc.setIn(['tool_views', 'r', 'tools'], doc.createNode([]));
    removeComposite(doc, 'lookup');
    expect(doc.toJSON().composite_tools).toBeUndefined();
  });

  it.each([
    ['sets a global pre_call', undefined, { pre_call: './h.mjs' }, { hooks: { pre_call: './h.mjs' } }, {}],
    ['sets a view hook', 'r', { post_call: './p.mjs' }, { r: { post_call: './p.mjs' } }, {}],
    [
      'clears one hook, keeping the other',
      undefined,
      { pre_call: null },
      { hooks: { post_call: './old-post.mjs' } },
      { pre_call: './old.mjs', post_call: './old-post.mjs' },
    ],
    ['clears both: the map goes', undefined, { pre_call: null, post_call: null }, { hooks: undefined }, { pre_call: './old.mjs', post_call: './old-post.mjs' }],
  ] as const)('%s', (_what, view, change, expected, before) => {
    const doc = parseDocument(`${BASE}hooks:\n  pre_call: ./old.mjs\n  post_call: ./old-post.mjs\n`);
    if (Object.keys(before).length === 0) doc.delete('hooks');
    expect(setHooks(doc, view, change)).toEqual(before);
    const json = doc.toJSON();
    if ('hooks' in expected) expect(json.hooks).toEqual(expected.hooks);
    else expect(json.tool_views.r.hooks).toEqual(expected.r);
  });

  it('refuses hooks for a view that does not exist', () => {
    expect(codeOf(() => setHooks(parseDocument(BASE), 'nope', { pre_call: './h.mjs' }))).toBe('NOT_FOUND');
  });
});
