import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoRestoreGraph } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoRestoreGraph);
