import { createRequire } from 'node:module';

/**
 * Built-in modules loaded at their first use, not at the start of every serve and daemon that
 * imports the code that may use them (~3 ms CPU each there): node:worker_threads at the first
 * worker (a search, a script run), node:v8 at the first pattern (its engine flags).
 */
const requireBuiltin = createRequire(import.meta.url);
let workers: typeof import('node:worker_threads') | undefined;
let v8: typeof import('node:v8') | undefined;

export function workerThreads(): typeof import('node:worker_threads') {
  return (workers ??= requireBuiltin('node:worker_threads') as typeof import('node:worker_threads'));
}

export function nodeV8(): typeof import('node:v8') {
  return (v8 ??= requireBuiltin('node:v8') as typeof import('node:v8'));
}
