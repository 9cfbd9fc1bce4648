import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverDisable } from '../../tools/server/edit.js';

export default commandFromTool(serverDisable);
