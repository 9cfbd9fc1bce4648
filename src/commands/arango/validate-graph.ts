import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoValidateGraphIntegrity } from '../../tools/arango/graph-upkeep.js';

export default commandFromTool(arangoValidateGraphIntegrity);
