import { readFileSync } from 'node:fs';

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

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

let build: string | undefined;

/**
 * mcpkit's version and the build it runs from (dist/build.json, a hash of the built code, written
 * by scripts/build.mjs): two processes with the same identity run the same code. From the sources
 * (tests) the build is "source".
 */
export function buildIdentity(): string {
  if (build) return build;
  let id = 'source';
  try {
    id = (JSON.parse(readFileSync(new URL('../build.json', import.meta.url), 'utf8')) as { id: string }).id;
  } catch {
    /* not built: running from src/ */
  }
  return (build = `${version()}+${id}`);
}

/** The folder mcpkit is installed in (holding its package.json and bin/run.js). */
export function packageRoot(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const url = new URL(rel, import.meta.url);
      if ((JSON.parse(readFileSync(url, 'utf8')) as { name?: string }).name === 'mcpkit') return dirname(fileURLToPath(url));
    } catch {
      /* try the next layout */
    }
  }
  return process.cwd();
}
