import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewShow } from '../../tools/view/read.js';

export default commandFromTool(viewShow);
