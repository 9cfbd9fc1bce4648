import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoCreateIndex } from '../../tools/arango/indexes.js';

export default commandFromTool(arangoCreateIndex);
