import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBackupGraph } from '../../tools/arango/graph-upkeep.js';

export default commandFromTool(arangoBackupGraph);
