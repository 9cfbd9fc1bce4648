import { commandFromTool } from '../../cli/command-from-tool.js';
import { openFile } from '../../tools/retrieve/open-file.js';

export default commandFromTool(openFile);
