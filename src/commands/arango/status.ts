import { commandFromTool } from '../../cli/command-from-tool.js';
import { arangoDatabaseStatus } from '../../tools/arango/collections.js';

export default commandFromTool(arangoDatabaseStatus);
