import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverApprove } from '../../tools/server/approve.js';

export default commandFromTool(serverApprove);
