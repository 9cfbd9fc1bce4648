import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverAdd } from '../../tools/server/edit.js';

export default commandFromTool(serverAdd);
