import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoInsert } from '../../tools/arango/documents.js';

export default commandFromTool(arangoInsert);
