import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverRemove } from '../../tools/server/remove.js';

export default commandFromTool(serverRemove);
