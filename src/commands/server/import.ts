import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverImport } from '../../tools/server/probe.js';

export default commandFromTool(serverImport);
