import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverEnable } from '../../tools/server/edit.js';

export default commandFromTool(serverEnable);
