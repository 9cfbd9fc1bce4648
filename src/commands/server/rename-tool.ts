import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverRenameTool } from '../../tools/server/edit.js';

export default commandFromTool(serverRenameTool);
