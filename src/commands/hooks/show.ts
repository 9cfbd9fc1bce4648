import { commandFromTool } from '../../cli/command-from-tool.js';
import { hooksShow } from '../../tools/config/hooks.js';

export default commandFromTool(hooksShow);
