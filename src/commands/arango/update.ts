import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoUpdate } from '../../tools/arango/documents.js';

export default commandFromTool(arangoUpdate);
