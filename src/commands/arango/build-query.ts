import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoQueryBuilder } from '../../tools/arango/query.js';

export default commandFromTool(arangoQueryBuilder);
