import { serverAdd, serverDisable, serverEnable, serverRemove, serverSetDescription, serverSetTools } from './edit.js';
import { serverImport, serverTest } from './probe.js';
import { serverList, serverShow } from './read.js';

export const serverTools = [serverAdd, serverRemove, serverList, serverShow, serverEnable, serverDisable, serverSetTools, serverSetDescription, serverTest, serverImport];
