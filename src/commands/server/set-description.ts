import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverSetDescription } from '../../tools/server/edit.js';

export default commandFromTool(serverSetDescription);
