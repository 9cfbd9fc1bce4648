import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoExplainQuery } from '../../tools/arango/query.js';

export default commandFromTool(arangoExplainQuery);
