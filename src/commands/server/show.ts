import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverShow } from '../../tools/server/read.js';

export default commandFromTool(serverShow);
