import { commandFromTool } from '../../cli/command-from-tool.js';
import { smartSearchTool } from '../../tools/retrieve/search.js';

export default commandFromTool(smartSearchTool);
