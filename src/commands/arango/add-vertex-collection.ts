import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoAddVertexCollection } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoAddVertexCollection);
