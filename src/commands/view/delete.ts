import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewDelete } from '../../tools/view/edit.js';

export default commandFromTool(viewDelete);
