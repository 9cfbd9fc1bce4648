import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewCreate } from '../../tools/view/edit.js';

export default commandFromTool(viewCreate);
