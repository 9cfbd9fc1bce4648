import { commandFromTool } from '../../cli/command-from-tool.js';
import { compositeShow } from '../../tools/config/composites.js';

export default commandFromTool(compositeShow);
