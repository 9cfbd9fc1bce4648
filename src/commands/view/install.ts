import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewInstall } from '../../tools/view/install.js';

export default commandFromTool(viewInstall);
