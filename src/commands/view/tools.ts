import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewTools } from '../../tools/view/read.js';

export default commandFromTool(viewTools);
