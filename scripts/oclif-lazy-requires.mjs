// oclif requires some modules at the top of files every command loads, though only rare paths use
// them: tinyglobby (with fdir and picomatch) finds commands when there is no manifest, ejs renders
// help templates, cli-spinners draws a spinner. Evaluating them cost ~3% of `mcpkit config path`'s
// CPU. The build turns each such require into a getter that requires on first use: the same module,
// the same value, later.

/** Per oclif file (from the package root): the require line, and the one name its code reads. */
export const LAZY_REQUIRES = {
  'lib/config/plugin.js': [['const tinyglobby_1 = require("tinyglobby");', 'glob']],
  'lib/config/config.js': [['const ejs_1 = __importDefault(require("ejs"));', 'default']],
  'lib/help/util.js': [['const ejs_1 = __importDefault(require("ejs"));', 'default']],
  'lib/ux/action/spinner.js': [['const cli_spinners_1 = __importDefault(require("cli-spinners"));', 'default']],
};

/** The getter object that replaces `const X = EXPR;` where code reads only X[name]. */
export function lazyRequire(line, name) {
  const parts = /^const (\w+) = (.+);$/.exec(line);
  if (parts === null) throw new Error(`not a require line: ${line}`);
  return `const ${parts[1]} = { get ${name}() { return (${parts[2]}).${name}; } };`;
}

/**
 * oclif's file `rel` with its rarely used requires made lazy. Throws when the file no longer has the
 * line, or reads the binding other than as `.name` (a new oclif then needs a look at this list).
 */
export function withLazyRequires(rel, source) {
  let text = source;
  for (const [line, name] of LAZY_REQUIRES[rel] ?? []) {
    const binding = line.slice('const '.length, line.indexOf(' ='));
    if (!text.includes(line)) throw new Error(`@oclif/core/${rel} no longer has ${line}: update scripts/oclif-lazy-requires.mjs`);
    const uses =
      text
        .split(line)
        .join('')
        .match(new RegExp(`\\b${binding}\\b(\\.\\w+)?`, 'g')) ?? [];
    if (uses.some((use) => use !== `${binding}.${name}`))
      throw new Error(`@oclif/core/${rel} uses ${binding} other than as .${name}: update scripts/oclif-lazy-requires.mjs`);
    text = text.replace(line, lazyRequire(line, name));
  }
  return text;
}
