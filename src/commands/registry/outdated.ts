import { commandFromTool } from '../../cli/command-from-tool.js';
import { registryOutdated } from '../../tools/registry/outdated.js';

export default commandFromTool(registryOutdated);
