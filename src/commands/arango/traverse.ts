import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoTraverse } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoTraverse);
