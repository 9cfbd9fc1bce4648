import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { minimumVersionCheck, withBuiltEngineCheck } from '../../scripts/oclif-engine-check.mjs';

// oclif's own check is semver.satisfies; the built one must answer the same.
const satisfies = (createRequire(import.meta.url)('semver') as { satisfies: (v: string, r: string) => boolean }).satisfies;
const check = (range: string) => new Function(`return ${minimumVersionCheck(range)}`)() as (v: string) => boolean;

describe('the Node range check built into the oclif bundle', () => {
  const versions = [
    '16.20.2',
    '17.9.9',
    '18.0.0',
    '18.0.1',
    '18.1.0',
    '19.0.0',
    '20.20.2',
    '100.0.0',
    '9.99.99',
    '18.0.0-rc.1',
    '22.0.0-nightly20240101',
    '20.1.0+build.7',
    'v20.1.0',
    ' 20.1.0 ',
    '20.1',
    'x',
    '',
    '18.2.3',
    '18.2.4',
    '18.3.0',
    '18.2.2',
    '17.99.99',
  ];
  for (const range of ['>=18.0.0', '>=18.2.3', '>=0.0.0', '>=20.19.0']) {
    it.each(versions)(`answers as semver.satisfies(v, "${range}") for %j`, (v) => {
      expect(check(range)(v)).toBe(satisfies(v, range));
    });
  }

  it.each(['^18.0.0', '>=18', '>=18.0.0 <23', '>= 18.0.0', '18.x', '>=18.0.0-0'])('refuses the range %j, which it cannot decide', (range) => {
    expect(() => minimumVersionCheck(range)).toThrow(/knows only ">=X.Y.Z"/);
  });

  it("replaces oclif's semver and package.json requires, and nothing else", () => {
    const index = [
      'function checkNodeVersion() {',
      "        const semver = require('semver');",
      "        const pjson = require(path.join(root, 'package.json'));",
      '}',
    ].join('\n');
    const built = withBuiltEngineCheck(index, '>=18.0.0');
    expect(built).not.toMatch(/require\('semver'\)|package\.json/);
    expect(built).toContain('const pjson = { engines: { node: ">=18.0.0" } };');
    expect(built.startsWith('function checkNodeVersion() {\n        const semver = { satisfies: ')).toBe(true);
  });

  it('fails the build when a new oclif changed the code it replaces', () => {
    expect(() => withBuiltEngineCheck("const semver = require('semver');", '>=18.0.0')).toThrow(/no longer has const pjson/);
    expect(() => withBuiltEngineCheck('', '>=18.0.0')).toThrow(/no longer has const semver/);
  });
});
