import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoGraphStatistics } from '../../tools/arango/graph-upkeep.js';

export default commandFromTool(arangoGraphStatistics);
