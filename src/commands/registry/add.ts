import { commandFromTool } from '../../cli/command-from-tool.js';
import { registryAdd } from '../../tools/registry/add.js';

export default commandFromTool(registryAdd);
