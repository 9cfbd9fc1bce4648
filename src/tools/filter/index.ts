import { filterSet } from './set.js';

export const filterTools = [filterSet];
