import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoListGraphs } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoListGraphs);
