import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoInsertWithValidation } from '../../tools/arango/documents.js';

export default commandFromTool(arangoInsertWithValidation);
