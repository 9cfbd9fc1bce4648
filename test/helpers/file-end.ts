import { afterAll } from 'vitest';
import { removeWhatTheFileMade } from './cli.js';

// The hook that ends a file's processes and temp folders, registered for every file of the seams
// project (vitest.config.ts) by this setup file, as serves-end.ts registers it for the suite's.
afterAll(removeWhatTheFileMade);
