import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoShortestPath } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoShortestPath);
