import { afterAll } from 'vitest';
import { removeWhatTheFileMade } from './cli.js';
import { closeWhatTheFileServed } from './in-process.js';

// The suite's files share their modules (vitest.config.ts: isolate: false),
// so the hooks their helpers need are registered here, a setup file run before every file: the
// serves a file started in its own process are closed, then its processes and temp folders go.
// (After-hooks run as a stack: the one registered last runs first.)
afterAll(removeWhatTheFileMade);
afterAll(closeWhatTheFileServed);
