import { commandFromTool } from '../../cli/command-from-tool.js';
import { compositeAdd } from '../../tools/config/composites.js';

export default commandFromTool(compositeAdd);
