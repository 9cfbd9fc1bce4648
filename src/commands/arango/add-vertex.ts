import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoAddVertex } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoAddVertex);
