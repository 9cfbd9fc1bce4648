import { commandFromTool } from '../../cli/command-from-tool.js';
import { codeTypes } from '../../tools/code/run.js';

export default commandFromTool(codeTypes);
