import { commandFromTool } from '../../cli/command-from-tool.js';
import { hooksClear } from '../../tools/config/hooks.js';

export default commandFromTool(hooksClear);
