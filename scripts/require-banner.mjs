// Bundled CommonJS calls require(), which an ES module lacks, so esbuild writes a banner making one
// into every output file. Only a few files call it; in the others the banner still imports
// node:module and builds a require at load, a cost every command pays once per module it loads.

/** The banner: the first line of every ES module the build writes. */
export const REQUIRE_BANNER = "import { createRequire as __mcpkitCreateRequire } from 'node:module'; const require = __mcpkitCreateRequire(import.meta.url);";

/**
 * A built module without the banner when nothing else in it names `require` (a word, anywhere, so a
 * file that might reach it keeps it). The line is left empty so the source map's lines still hold.
 */
export function withoutUnusedRequire(moduleText) {
  if (!moduleText.startsWith(`${REQUIRE_BANNER}\n`)) return moduleText;
  const body = moduleText.slice(REQUIRE_BANNER.length);
  return /\brequire\b/.test(body) ? moduleText : body;
}
