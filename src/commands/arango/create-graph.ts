import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoCreateGraph } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoCreateGraph);
