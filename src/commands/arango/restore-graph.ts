import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoRestoreGraph } from '../../tools/arango/graph-upkeep.js';

export default commandFromTool(arangoRestoreGraph);
