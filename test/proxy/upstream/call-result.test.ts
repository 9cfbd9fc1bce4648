import { describe, expect, it } from 'vitest';
import { malformedCallResult } from '../../../src/proxy/upstream/call-result.js';

describe('malformedCallResult', () => {
  it.each<[string, unknown, RegExp | undefined]>([
    ['a text result', { content: [{ type: 'text', text: 'hi' }] }, undefined],
    ['an empty result', {}, undefined],
    ['an error result', { content: [{ type: 'text', text: 'no' }], isError: true }, undefined],
    ['structured content', { content: [], structuredContent: { a: 1 } }, undefined],
    ['a block type from a later revision', { content: [{ type: 'hologram', data: 1 }] }, undefined],
    ['an input_required result (2026-07-28)', { resultType: 'input_required', inputRequests: {} }, undefined],
    ['a string', 'notanobject', /a string, not an object/],
    ['null', null, /null, not an object/],
    ['a list', [], /a list, not an object/],
    ['content that is a string', { content: 'notanarray' }, /content is a string, not a list/],
    ['a block that is not an object', { content: ['hi'] }, /content\[0\] is a string/],
    ['a block without a type', { content: [{ text: 'hi' }] }, /content\[0\] has no type/],
    ['structuredContent that is a list', { content: [], structuredContent: [1] }, /structuredContent is a list/],
    ['isError that is a string', { content: [], isError: 'yes' }, /isError is a string/],
  ])('%s', (_what, result, problem) => {
    const found = malformedCallResult(result);
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});
