import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoDeleteIndex } from '../../tools/arango/indexes.js';

export default commandFromTool(arangoDeleteIndex);
