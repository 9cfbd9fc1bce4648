import { commandFromTool } from '../../cli/command-from-tool.js';
import { configValidate } from '../../tools/config/validate.js';

export default commandFromTool(configValidate);
