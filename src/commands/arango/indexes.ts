import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoListIndexes } from '../../tools/arango/indexes.js';

export default commandFromTool(arangoListIndexes);
