import { commandFromTool } from '../../../cli/command-from-tool.js';
import { registrySourceRemove } from '../../../tools/registry/sources.js';

export default commandFromTool(registrySourceRemove);
