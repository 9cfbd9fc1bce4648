import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBackupNamedGraphs } from '../../tools/arango/graph-upkeep.js';

export default commandFromTool(arangoBackupNamedGraphs);
