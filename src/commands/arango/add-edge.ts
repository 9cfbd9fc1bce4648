import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoAddEdge } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoAddEdge);
