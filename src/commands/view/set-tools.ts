import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewSetTools } from '../../tools/view/edit.js';

export default commandFromTool(viewSetTools);
