import { listDir } from './list-dir.js';
import { getSnippet, openFile } from './open-file.js';

export const retrieveTools = [listDir, openFile, getSnippet];
