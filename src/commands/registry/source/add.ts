import { commandFromTool } from '../../../cli/command-from-tool.js';
import { registrySourceAdd } from '../../../tools/registry/sources.js';

export default commandFromTool(registrySourceAdd);
