import { commandFromTool } from '../../cli/command-from-tool.js';
import { listVersions } from '../../tools/registry/list.js';

export default commandFromTool(listVersions);
