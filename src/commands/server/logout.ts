import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverLogout } from '../../tools/server/login.js';

export default commandFromTool(serverLogout);
