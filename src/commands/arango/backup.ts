import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBackup } from '../../tools/arango/collections.js';

export default commandFromTool(arangoBackup);
