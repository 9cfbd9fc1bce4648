import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverTest } from '../../tools/server/probe.js';

export default commandFromTool(serverTest);
