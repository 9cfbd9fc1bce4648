import { afterAll } from 'vitest';
import { removeWhatTheFileMade } from './cli.js';

// The unit project's files share their modules (vitest.config.ts: isolate: false), so the hook
// test/helpers/cli.ts registers as it is first evaluated ends only the first file's: this setup
// file, run before every file, registers it for each.
afterAll(removeWhatTheFileMade);
