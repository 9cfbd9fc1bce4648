import { commandFromTool } from '../../cli/command-from-tool.js';
import { search } from '../../tools/retrieve/search.js';

export default commandFromTool(search);
