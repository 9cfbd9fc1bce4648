import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverApprove } from '../../tools/server/pins.js';

export default commandFromTool(serverApprove);
