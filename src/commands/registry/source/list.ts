import { commandFromTool } from '../../../cli/command-from-tool.js';
import { registrySourceList } from '../../../tools/registry/sources.js';

export default commandFromTool(registrySourceList);
