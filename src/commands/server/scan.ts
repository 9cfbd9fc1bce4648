import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverScan } from '../../tools/server/scan.js';

export default commandFromTool(serverScan);
