import { commandFromTool } from '../../cli/command-from-tool.js';
import { configPath } from '../../tools/config/path.js';

export default commandFromTool(configPath);
