import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverList } from '../../tools/server/read.js';

export default commandFromTool(serverList);
