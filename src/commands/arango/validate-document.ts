import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoValidateDocument } from '../../tools/arango/schemas.js';

export default commandFromTool(arangoValidateDocument);
