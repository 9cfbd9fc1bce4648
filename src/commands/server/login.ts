import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverLogin } from '../../tools/server/login.js';

export default commandFromTool(serverLogin);
