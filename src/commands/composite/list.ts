import { commandFromTool } from '../../cli/command-from-tool.js';
import { compositeList } from '../../tools/config/composites.js';

export default commandFromTool(compositeList);
