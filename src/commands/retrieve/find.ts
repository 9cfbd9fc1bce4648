import { commandFromTool } from '../../cli/command-from-tool.js';
import { findFiles } from '../../tools/retrieve/search.js';

export default commandFromTool(findFiles);
