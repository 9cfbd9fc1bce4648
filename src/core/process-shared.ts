/**
 * One value for the whole process, whichever copy of a module asks for it. Each bundle mcpkit
 * starts from holds its own copy of every module it bundles (the script forms of serve and the
 * daemon, the daemon's client), and a line that goes on to oclif loads the split build's: a
 * process can meet two. A previous daemon script ran its oclif lines from the split build, and
 * those did not see the daemon's command scope (they asked the daemon again). The daemon's
 * script now holds oclif and its commands itself (scripts/build-scripts.mjs), so it has one copy;
 * state that is the process's by nature (the command a call runs for, the secrets to mask,
 * whether work runs inside a script, the search workers' bound) is kept here all the same, on
 * globalThis under a registered symbol (`Symbol.for`), made by the first copy that asks, so that
 * a second copy, wherever one appears, cannot get around it. Every copy is of one build.
 */
export function processShared<T>(name: string, make: () => T): T {
  const key = Symbol.for(`mcpkit.${name}`);
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  return (holder[key] ??= make());
}
