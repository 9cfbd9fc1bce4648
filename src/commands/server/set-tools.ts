import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverSetTools } from '../../tools/server/edit.js';

export default commandFromTool(serverSetTools);
