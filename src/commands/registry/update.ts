import { commandFromTool } from '../../cli/command-from-tool.js';
import { registryUpdate } from '../../tools/registry/outdated.js';

export default commandFromTool(registryUpdate);
