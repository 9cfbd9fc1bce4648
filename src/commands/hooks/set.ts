import { commandFromTool } from '../../cli/command-from-tool.js';
import { hooksSet } from '../../tools/config/hooks.js';

export default commandFromTool(hooksSet);
