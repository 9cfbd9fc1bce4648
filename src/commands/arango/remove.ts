import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoRemove } from '../../tools/arango/documents.js';

export default commandFromTool(arangoRemove);
