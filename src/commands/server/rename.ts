import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverRename } from '../../tools/server/remove.js';

export default commandFromTool(serverRename);
