import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The built modules an entry of dist/ loads before it runs (its static imports, transitively): what
 * every run of that entry pays to resolve, compile and evaluate. Dynamic imports are left out.
 */
export function staticGraph(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*"(\.{1,2}\/[^"]+)"/g)) visit(resolve(dirname(file), m[1]!));
  };
  visit(entry);
  return [...seen];
}

/** The sources (as their source maps name them) bundled into the given built modules. */
export function bundledSources(files: readonly string[]): string[] {
  return files.flatMap((file) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources);
}
