import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoValidateGraphIntegrity } from '../../tools/arango/graphs.js';

export default commandFromTool(arangoValidateGraphIntegrity);
