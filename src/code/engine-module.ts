import { processShared } from '../core/process-shared.js';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * QuickJS's WebAssembly, compiled once per process and handed to each run's worker thread: a
 * thread that compiles it itself pays for the compile, and for V8's optimising of its hot
 * functions, in every run. A compiled module crosses to a thread without being copied.
 */
// Held for the process, whichever copy of this module asks (core/process-shared.ts): two would each compile it.
const compiled = processShared('quickjsModule', () => ({ module: undefined as Promise<WebAssembly.Module | undefined> | undefined }));

export function engineModule(): Promise<WebAssembly.Module | undefined> {
  compiled.module ??= (async () => {
    try {
      const file = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
      return await WebAssembly.compile(await readFile(file));
    } catch {
      // The worker then loads the engine itself, as it did before.
      return undefined;
    }
  })();
  return compiled.module;
}
