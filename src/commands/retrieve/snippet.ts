import { commandFromTool } from '../../cli/command-from-tool.js';
import { getSnippet } from '../../tools/retrieve/open-file.js';

export default commandFromTool(getSnippet);
