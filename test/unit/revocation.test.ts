import { describe, expect, it } from 'vitest';
import { Revocation } from '../../src/mcp/pipeline/revocation.js';

/** A call's revocation (mcp/pipeline/revocation.ts): listeners and a signal made on first use, told once. */
describe('Revocation', () => {
  type Step = 'listen' | 'unlisten' | 'signal' | 'revoke' | 'revoke again' | 'listen late';
  const cases: [string, Step[], { told: string[]; aborted: boolean; signalAborted?: boolean }][] = [
    ['told once when revoked', ['listen', 'revoke', 'revoke again'], { told: ['listener'], aborted: true }],
    ['a listener that stopped is not told', ['listen', 'unlisten', 'revoke'], { told: [], aborted: true }],
    ['a listener after the revocation is not told (as an abort event)', ['revoke', 'listen late'], { told: [], aborted: true }],
    ['a signal made before aborts with it', ['signal', 'revoke'], { told: [], aborted: true, signalAborted: true }],
    ['a signal made after is aborted already', ['revoke', 'signal'], { told: [], aborted: true, signalAborted: true }],
    ['nothing happens unrevoked', ['listen', 'signal'], { told: [], aborted: false, signalAborted: false }],
  ];
  it.each(cases)('%s', (_name, steps, expected) => {
    const revocation = new Revocation();
    const told: string[] = [];
    let off = () => {};
    let signal: AbortSignal | undefined;
    for (const step of steps) {
      if (step === 'listen') off = revocation.on(() => told.push('listener'));
      if (step === 'listen late') revocation.on(() => told.push('late'));
      if (step === 'unlisten') off();
      if (step === 'signal') signal = revocation.signal;
      if (step === 'revoke' || step === 'revoke again') revocation.revoke('why');
    }
    expect(told).toEqual(expected.told);
    expect(revocation.aborted).toBe(expected.aborted);
    if (expected.signalAborted !== undefined) expect(signal?.aborted).toBe(expected.signalAborted);
    if (expected.signalAborted) expect(signal?.reason).toBe('why');
  });
});
