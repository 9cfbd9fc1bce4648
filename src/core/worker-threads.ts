import { createRequire } from 'node:module';

let loaded: typeof import('node:worker_threads') | undefined;

/**
 * node:worker_threads, loaded at the first worker a process starts: a search or a script run
 * needs it, while every serve and daemon imports the modules that start them, and loading it at
 * start cost ~3 ms CPU there for workers most sessions never start.
 */
export function workerThreads(): typeof import('node:worker_threads') {
  return (loaded ??= createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads'));
}
