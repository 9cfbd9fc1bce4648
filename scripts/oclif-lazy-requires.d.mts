/** Per oclif file: the require line, and the one name its code reads. */
export const LAZY_REQUIRES: Record<string, [string, string][]>;
/** The getter object that replaces `const X = EXPR;` where code reads only X[name]. */
export function lazyRequire(line: string, name: string): string;
/** oclif's file `rel` with its rarely used requires made lazy. */
export function withLazyRequires(rel: string, source: string): string;
