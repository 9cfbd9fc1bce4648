/** Source of a function answering as semver.satisfies(version, range) for a ">=X.Y.Z" range. */
export function minimumVersionCheck(range: string): string;
/** oclif's lib/index.js with its engine check built from `range`. */
export function withBuiltEngineCheck(indexSource: string, range: string): string;
