import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoAddEdgeDefinition } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoAddEdgeDefinition);
