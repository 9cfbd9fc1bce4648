import { commandFromTool } from '../../cli/command-from-tool.js';
import { getServer } from '../../tools/registry/list.js';

export default commandFromTool(getServer);
