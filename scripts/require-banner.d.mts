/** The banner: the first line of every ES module the build writes. */
export const REQUIRE_BANNER: string;
/** A built module without the banner when nothing else in it names `require`. */
export function withoutUnusedRequire(moduleText: string): string;
