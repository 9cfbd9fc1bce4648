import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoGraphStatistics } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoGraphStatistics);
