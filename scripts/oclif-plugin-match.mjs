// oclif finds the plugins named in package.json's oclif.plugins by matching each pattern against
// every dependency with minimatch: ~60 glob compilations on every command (~3% of `mcpkit config
// path`'s CPU), for names that hold no glob. The build compares a plain name with a plain name as
// strings and leaves every other pair to minimatch (test/unit/oclif-plugin-match.test.ts holds the two equal).

/** oclif's lib/config/plugin-loader.js line that `withLiteralPluginNames` replaces. */
const MATCH_CALL = '(0, minimatch_1.minimatch)(p, w)';

/**
 * A name that, as a pattern, minimatch matches only against itself among plain names: npm name characters, no glob or extglob syntax
 * (`@` and `+` start an extglob only before `(`), no `#` comment, and no `.` segment, empty
 * segment or trailing slash, which minimatch normalises.
 */
export function isLiteralName(pattern) {
  return /^[A-Za-z0-9@_~-][A-Za-z0-9@._~+/-]*$/.test(pattern) && !/\/\/|\/\.|\/$/.test(pattern);
}

/** oclif's plugin-loader.js comparing as strings where pattern and dependency name are both plain. */
export function withLiteralPluginNames(loaderSource) {
  if (!loaderSource.includes(MATCH_CALL))
    throw new Error(`@oclif/core/lib/config/plugin-loader.js no longer has ${MATCH_CALL}: update scripts/oclif-plugin-match.mjs`);
  const literal = isLiteralName.toString().replace(/^function isLiteralName/, 'function');
  return loaderSource.replaceAll(MATCH_CALL, `((${literal})(w) && (${literal})(p) ? p === w : ${MATCH_CALL})`);
}
