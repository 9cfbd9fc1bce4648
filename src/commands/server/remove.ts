import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverRemove } from '../../tools/server/edit.js';

export default commandFromTool(serverRemove);
