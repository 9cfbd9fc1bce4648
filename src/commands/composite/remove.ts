import { commandFromTool } from '../../cli/command-from-tool.js';
import { compositeRemove } from '../../tools/config/composites.js';

export default commandFromTool(compositeRemove);
