import { serverAdd, serverDisable, serverEnable, serverRemove, serverSetDescription, serverSetTools } from './edit.js';
import { serverList, serverShow } from './read.js';

export const serverTools = [serverAdd, serverRemove, serverList, serverShow, serverEnable, serverDisable, serverSetTools, serverSetDescription];
