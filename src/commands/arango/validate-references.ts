import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoValidateReferences } from '../../tools/arango/documents.js';

export default commandFromTool(arangoValidateReferences);
