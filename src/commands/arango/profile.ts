import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoQueryProfile } from '../../tools/arango/query.js';

export default commandFromTool(arangoQueryProfile);
