import { commandFromTool } from '../../cli/command-from-tool.js';
import { serverDiff } from '../../tools/server/pins.js';

export default commandFromTool(serverDiff);
