import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoBulkUpdate } from '../../tools/arango/documents.js';

export default commandFromTool(arangoBulkUpdate);
