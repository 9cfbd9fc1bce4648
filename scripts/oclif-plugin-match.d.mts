/** Whether minimatch matches `pattern` only against the string itself. */
export function isLiteralName(pattern: string): boolean;
/** oclif's plugin-loader.js with plain plugin names compared as strings. */
export function withLiteralPluginNames(loaderSource: string): string;
