import { listDir } from './list-dir.js';
import { getSnippet, openFile } from './open-file.js';
import { findFiles, search, smartSearchTool } from './search.js';

export const retrieveTools = [listDir, findFiles, openFile, getSnippet, search, smartSearchTool];
