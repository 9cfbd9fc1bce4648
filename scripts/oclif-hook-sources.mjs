// The script forms that run oclif hold every module oclif loads by its file (build-scripts.mjs
// bundledModulesPlugin); a hook file they lacked would fail only there, not in the split build. So
// the hooks are read from package.json, where oclif reads them, not listed a second time.

/**
 * The sources of the hook files package.json's `oclif.hooks` names (each event's value a path, a
 * list of them, or `{ target }` objects, as oclif takes them): `./dist/cli/x` is `src/cli/x.ts`.
 * A target outside dist/ is an error: the build would not know what it is made from.
 */
export function oclifHookSources(oclif) {
  const targets = Object.values(oclif?.hooks ?? {})
    .flat()
    .map((hook) => (typeof hook === 'string' ? hook : hook?.target));
  return [
    ...new Set(
      targets.map((target) => {
        const rel = typeof target === 'string' ? /^(?:\.\/)?dist\/(.+?)(?:\.js)?$/.exec(target)?.[1] : undefined;
        if (rel === undefined) throw new Error(`package.json's oclif hook ${JSON.stringify(target)} is not a file of dist/`);
        return `src/${rel}.ts`;
      }),
    ),
  ];
}
