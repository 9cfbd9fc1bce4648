import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoCreateSchema } from '../../tools/arango/schemas.js';

export default commandFromTool(arangoCreateSchema);
