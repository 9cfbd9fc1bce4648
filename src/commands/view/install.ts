import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewInstall } from '../../tools/view/read.js';

export default commandFromTool(viewInstall);
