import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBulkInsert } from '../../tools/arango/documents.js';

export default commandFromTool(arangoBulkInsert);
