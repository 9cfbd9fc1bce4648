import { describe, expect, it } from 'vitest';
import { answerForm, askForm, fieldPrompt, parseField, type Asker, type FormField } from '../../src/cli/terminal/elicitation-answers.js';

const form = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
    verified: { type: 'boolean', default: false },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
    email: { type: 'string', format: 'email' },
    odd: { type: 'string', default: { not: 'a primitive' } },
  },
};

describe('answerForm', () => {
  it.each([
    ['accept-defaults', form, { action: 'accept', content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: false, tags: ['a'] } }],
    ['accept-defaults', { type: 'object', properties: { confirmed: { type: 'boolean' } } }, { action: 'accept', content: {} }],
    ['accept-defaults', undefined, { action: 'accept', content: {} }],
    ['accept-defaults', { ...form, required: ['name', 'email'] }, { action: 'decline', why: 'the form requires email, which has no default' }],
    ['decline', form, { action: 'decline' }],
    ['cancel', form, { action: 'cancel' }],
  ] as const)('%s', (mode, schema, answer) => {
    expect(answerForm(mode, schema)).toEqual(answer);
  });
});

const hero: FormField = {
  type: 'string',
  oneOf: [
    { const: 'hero-1', title: 'Superman' },
    { const: 'hero-2', title: 'Green Lantern' },
  ],
};
const pets: FormField = { type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'] };
const fish: FormField = {
  type: 'array',
  items: {
    anyOf: [
      { const: 'fish-1', title: 'Tuna' },
      { const: 'fish-2', title: 'Trout' },
    ],
  },
};

describe('parseField', () => {
  it.each([
    [{ type: 'string' }, '  Ada Lovelace ', { value: '  Ada Lovelace ' }],
    [{ type: 'string' }, '', {}],
    [{ type: 'boolean' }, 'Y', { value: true }],
    [{ type: 'boolean' }, 'no', { value: false }],
    [{ type: 'boolean' }, 'maybe', { error: 'answer y or n' }],
    [{ type: 'integer', minimum: 1, maximum: 100 }, '42', { value: 42 }],
    [{ type: 'integer' }, '4.5', { error: 'not an integer' }],
    [{ type: 'integer', minimum: 1 }, '0', { error: 'at least 1' }],
    [{ type: 'number', maximum: 10 }, '3.14', { value: 3.14 }],
    [{ type: 'number', maximum: 10 }, '11', { error: 'at most 10' }],
    [{ type: 'number' }, 'abc', { error: 'not a number' }],
    [hero, 'hero-2', { value: 'hero-2' }],
    [hero, 'green lantern', { value: 'hero-2' }],
    [hero, '1', { value: 'hero-1' }],
    [hero, 'Batman', { error: 'choose one of 1) Superman, 2) Green Lantern' }],
    [pets, 'Dogs', { value: 'pet-2' }],
    [fish, 'Tuna, 2', { value: ['fish-1', 'fish-2'] }],
    [fish, 'Tuna, Cod', { error: 'not a choice: Cod' }],
  ] as const)('%j takes %j', (field, text, parsed) => {
    expect(parseField(field as FormField, text)).toEqual(parsed);
  });
});

describe('askForm', () => {
  const scripted = (answers: (string | undefined)[]) => {
    const said: string[] = [];
    const asker: Asker = { say: (l) => void said.push(l), question: async (p) => (said.push(p), answers.shift()) };
    return { asker, said };
  };
  const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', default: 30 }, pet: pets }, required: ['name'] };

  it('asks each field, again when an answer cannot be taken or a required one is empty, keeps defaults on an empty line, and asks to send', async () => {
    const { asker, said } = scripted(['', 'Ada', 'old', '', '2', 'y']);
    expect(await askForm('Who are you?', schema, asker)).toEqual({ action: 'accept', content: { name: 'Ada', age: 30, pet: 'pet-2' } });
    expect(said).toContain('  this field is required');
    expect(said).toContain('  not an integer');
    expect(said[0]).toBe('mcpkit: a server asks: Who are you?');
  });

  it.each([
    [['Ada', '', '', 'n'], { action: 'decline' }],
    [['Ada', '', '', 'c'], { action: 'cancel' }],
    [['Ada', undefined], { action: 'cancel' }], // the end of input
  ] as const)('answers %j as %j', async (answers, answer) => {
    expect(await askForm('?', schema, scripted([...answers]).asker)).toEqual(answer);
  });

  it('shows what a field takes and its default', () => {
    expect(fieldPrompt('pet', { ...pets, title: 'Pet', description: 'Your pet', default: 'pet-1' }, false)).toBe(
      '  Pet (pet) - Your pet (one of 1) Cats, 2) Dogs) [pet-1]: ',
    );
    expect(fieldPrompt('name', { type: 'string' }, true)).toBe('  name * (string): ');
  });
});
