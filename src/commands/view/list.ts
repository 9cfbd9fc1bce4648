import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewList } from '../../tools/view/read.js';

export default commandFromTool(viewList);
