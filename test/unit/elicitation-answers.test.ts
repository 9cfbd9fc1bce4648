import { describe, expect, it } from 'vitest';
import { answerForm } from '../../src/cli/elicitation-answers.js';

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
    ['decline', form, { action: 'decline' }],
    ['cancel', form, { action: 'cancel' }],
  ] as const)('%s', (mode, schema, answer) => {
    expect(answerForm(mode, schema)).toEqual(answer);
  });
});
