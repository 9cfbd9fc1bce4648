import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoListCollections } from '../../tools/arango/collections.js';

export default commandFromTool(arangoListCollections);
