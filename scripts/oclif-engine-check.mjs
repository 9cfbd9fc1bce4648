// @oclif/core checks, as it is first imported, that this Node satisfies its own `engines.node`:
// it requires all of semver (every function and range class, ~5% of a `mcpkit config path`'s CPU)
// and reads its package.json from node_modules, on every command. The range is known when we
// bundle, so the build writes the same check as a few comparisons: the same warning, for the same
// versions (test/unit/oclif-engine-check.test.ts holds it to semver.satisfies).

/** The text oclif's lib/index.js runs, which `withBuiltEngineCheck` replaces. */
const SEMVER_REQUIRE = "const semver = require('semver');";
const PJSON_REQUIRE = "const pjson = require(path.join(root, 'package.json'));";

/**
 * Source of a function (version: string) => boolean that answers as semver.satisfies(version, range)
 * does for `range` of the form ">=X.Y.Z", the only form oclif has used. Any other range throws, so a
 * new oclif with another range fails the build rather than warn wrongly.
 */
export function minimumVersionCheck(range) {
  const floor = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (floor === null) throw new Error(`oclif's engines.node is ${JSON.stringify(range)}: scripts/oclif-engine-check.mjs knows only ">=X.Y.Z"`);
  const [major, minor, patch] = floor.slice(1).map(Number);
  // semver: a prerelease (22.0.0-nightly) never satisfies a range without one; build metadata is ignored.
  return (
    `(v) => { const m = /^v?(\\d+)\\.(\\d+)\\.(\\d+)(?:\\+[0-9A-Za-z.-]+)?$/.exec(String(v).trim()); if (m === null) return false; ` +
    `const [a, b, c] = m.slice(1).map(Number); ` +
    `return a !== ${major} ? a > ${major} : b !== ${minor} ? b > ${minor} : c >= ${patch}; }`
  );
}

/** oclif's lib/index.js with its engine check built from `range` (its package.json's engines.node). */
export function withBuiltEngineCheck(indexSource, range) {
  for (const expected of [SEMVER_REQUIRE, PJSON_REQUIRE]) {
    if (!indexSource.includes(expected)) throw new Error(`@oclif/core/lib/index.js no longer has ${expected}: update scripts/oclif-engine-check.mjs`);
  }
  return indexSource
    .replace(SEMVER_REQUIRE, `const semver = { satisfies: ${minimumVersionCheck(range)} };`)
    .replace(PJSON_REQUIRE, `const pjson = { engines: { node: ${JSON.stringify(range)} } };`);
}
