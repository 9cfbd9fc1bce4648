import { commandFromTool } from '../../cli/command-from-tool.js';
import { configShow } from '../../tools/config/show.js';

export default commandFromTool(configShow);
