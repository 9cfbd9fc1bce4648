import { describe, expect, it } from 'vitest';
import { clientErrorAllowed, scenarioProblems, type ScenarioEvidence } from '../helpers/conformance-batch.js';

const ok = { status: 'SUCCESS' };
const ran = (exit: number | undefined, delivered = true) => ({ exit, delivered });

describe('a batched client scenario passes on what OVERALL: PASSED asked of it', () => {
  it.each<[string, ScenarioEvidence, string[] | null]>([
    ['every check passed, the client exited 0', { checks: [ok, { status: 'INFO' }], runs: [ran(0)], allowClientError: false }, []],
    ['no checks.json: no verdict, run again', { checks: null, runs: [ran(0)], allowClientError: false }, null],
    ['a failed check', { checks: [ok, { status: 'FAILURE' }], runs: [ran(0)], allowClientError: false }, ['1 failed checks']],
    ['a warning', { checks: [ok, { status: 'WARNING' }], runs: [ran(0)], allowClientError: false }, ['1 warnings']],
    ['nothing checked', { checks: [{ status: 'INFO' }], runs: [ran(0)], allowClientError: false }, ['no checks ran']],
    ['the client exited 1', { checks: [ok], runs: [ran(1)], allowClientError: false }, ['the client exited with 1']],
    ['the client exited 1 where the scenario allows it', { checks: [ok], runs: [ran(1)], allowClientError: true }, []],
    [
      'the suite cut the client off',
      { checks: [ok], runs: [ran(0, false)], allowClientError: true },
      ['the client timed out (its status never reached the suite)'],
    ],
    ['the client never ended', { checks: [ok], runs: [ran(undefined, false)], allowClientError: false }, ['the client did not end']],
    ['no client ran', { checks: [ok], runs: [], allowClientError: false }, ['the client ran 0 times, not once']],
    ['the client ran twice', { checks: [ok], runs: [ran(0), ran(0)], allowClientError: false }, ['the client ran 2 times, not once']],
  ])('%s', (_, evidence, problems) => {
    expect(scenarioProblems(evidence)).toEqual(problems);
  });
});

describe("the scenarios whose client may exit non-zero, from the suite's code", () => {
  it.each<[string, string, string[]]>([
    [
      'a scenario that allows it',
      'po=class{constructor(){this.name=`auth/scope-retry-limit`,this.source={introducedIn:`2025-11-25`},this.allowClientError=!0,this.checks=[]}}',
      ['auth/scope-retry-limit'],
    ],
    [
      'one that does not, then one that does',
      'a=class{constructor(){this.name=`auth/a`,this.checks=[]}},b=class{constructor(){this.name=`auth/b`,this.allowClientError=!0}}',
      ['auth/b'],
    ],
    ['a flag in a later statement is not the scenario’s', 'a=class{constructor(){this.name=`auth/a`;this.allowClientError=!0}}', []],
    ['a computed name is not read', 'cn=class extends Bt{constructor(e){super(),this.allowClientError=!0,this.name=sn[e]}}', []],
  ])('%s', (_, source, names) => {
    expect([...clientErrorAllowed(source)]).toEqual(names);
  });
});
