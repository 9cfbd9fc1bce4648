import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBackupNamedGraphs } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoBackupNamedGraphs);
