import { commandFromTool } from '../../cli/command-from-tool.js';
import { listDir } from '../../tools/retrieve/list-dir.js';

export default commandFromTool(listDir);
