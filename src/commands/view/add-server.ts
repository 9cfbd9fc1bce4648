import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewAddServer } from '../../tools/view/edit.js';

export default commandFromTool(viewAddServer);
