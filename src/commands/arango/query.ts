import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoQuery } from '../../tools/arango/query.js';

export default commandFromTool(arangoQuery);
