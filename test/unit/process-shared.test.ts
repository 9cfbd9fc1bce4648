import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as nestedA from '../../src/code/nested-runs.js';
import * as scopeA from '../../src/cli/terminal/command-scope.js';
import * as errorsA from '../../src/core/errors.js';
import * as redactA from '../../src/core/redact.js';

/**
 * The daemon runs from its script form, a bundle of its own modules, and runs lines through oclif,
 * which loads the split build: a second copy of each module in one process. What the copies must
 * share (core/process-shared.ts) is tested here across two copies of each module: a module imported
 * under another URL (`?copy`) is a module of its own, with state of its own unless it shares it.
 */
const copy = async <T>(url: string): Promise<T> => (await import(/* @vite-ignore */ `${url}?copy`)) as T;

describe('state two copies of a module share in one process', async () => {
  const scopeB = await copy<typeof scopeA>('../../src/cli/terminal/command-scope.js');
  const errorsB = await copy<typeof errorsA>('../../src/core/errors.js');
  const redactB = await copy<typeof redactA>('../../src/core/redact.js');
  const nestedB = await copy<typeof nestedA>('../../src/code/nested-runs.js');

  it('the copies are modules of their own (else this tests nothing)', () => {
    expect(scopeB.inScope).not.toBe(scopeA.inScope);
    expect(errorsB.ToolError).not.toBe(errorsA.ToolError);
    expect(redactB.redact).not.toBe(redactA.redact);
    expect(nestedB.insideAScript).not.toBe(nestedA.insideAScript);
  });

  it("a line run in a scope by one copy (the daemon's) sees that scope through the other (oclif's commands): the daemon is never asked again", async () => {
    const daemon = {} as NonNullable<scopeA.CommandScope['daemon']>;
    const scope = { ...scopeA.processScope(), hosted: true, daemon };
    await scopeA.inScope(scope, async () => {
      await Promise.resolve();
      expect(scopeB.commandScope()).toBe(scope);
    });
    await scopeB.inScope(scope, async () => expect(scopeA.commandScope().daemon).toBe(daemon));
    expect(scopeB.commandScope().daemon).toBeUndefined();
  });

  it.each([
    ['made by one copy, checked by the other', (): unknown => new errorsA.ToolError('NOT_FOUND', 'no such tool'), errorsB, true],
    ['made by the other, checked by the first', (): unknown => new errorsB.ToolError('FORBIDDEN', 'no'), errorsA, true],
    ['a plain Error', (): unknown => new Error('x'), errorsB, false],
    ['an object named like one', (): unknown => Object.assign(new Error('x'), { name: 'ToolError', code: 'NOT_FOUND' }), errorsB, false],
    ['not an object', (): unknown => 'ToolError', errorsB, false],
  ] as const)('ToolError is known across copies: %s', (_what, make, checker, is) => {
    const error = make();
    expect(error instanceof checker.ToolError).toBe(is);
    expect(checker.isToolError(error)).toBe(is);
    expect(checker.errorObject(error).code === 'INTERNAL').toBe(!is);
  });

  it("a secret one copy registers (the daemon's config) is masked by the other (an error a command prints)", () => {
    const secret = `s3cret-${randomBytes(8).toString('hex')}`;
    redactA.addSecrets([secret]);
    expect(redactB.redact(`token ${secret} leaked`)).toBe(`token ${redactA.REDACTED} leaked`);
    expect(errorsB.errorObject(new errorsA.ToolError('UNAVAILABLE', `no ${secret}`)).message).not.toContain(secret);
  });

  it('an inner call of a script one copy runs is inside a script for the other (a run it would start is refused)', async () => {
    expect(await nestedA.asScriptCall(async () => (await Promise.resolve(), nestedB.insideAScript()))).toBe(true);
    expect(nestedB.insideAScript()).toBe(false);
  });
});
