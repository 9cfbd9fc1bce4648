import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** mcpkit's version, from package.json (upstream servers see it in initialize). */
export function version(): string {
  if (cached) return cached;
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      cached = (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version: string }).version;
      if (cached) return cached;
    } catch {
      /* try the next layout: src/tools/shared or dist/chunks */
    }
  }
  return (cached = '0.0.0');
}
