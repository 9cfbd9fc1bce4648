import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewRemoveServer } from '../../tools/view/edit.js';

export default commandFromTool(viewRemoveServer);
