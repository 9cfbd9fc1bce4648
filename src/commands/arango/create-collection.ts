import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoCreateCollection } from '../../tools/arango/collections.js';

export default commandFromTool(arangoCreateCollection);
