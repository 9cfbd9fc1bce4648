import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBackupGraph } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoBackupGraph);
