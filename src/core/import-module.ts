/**
 * import() of a module found at run time (a hook's file, by its URL), in a module of its own: the
 * script form of an entry (scripts/build-scripts.mjs) turns the bundle's import() into require(),
 * which cannot load an ES module, and puts in this module's place one that calls its loader's
 * import() (src/cli/cached-script.ts).
 */
export const importModule = (url: string): Promise<unknown> => import(url);
