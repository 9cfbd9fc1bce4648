import { commandFromTool } from '../../cli/command-from-tool.js';
import { configJsonSchema } from '../../tools/config/schema.js';

export default commandFromTool(configJsonSchema);
