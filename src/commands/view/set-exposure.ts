import { commandFromTool } from '../../cli/command-from-tool.js';
import { viewSetExposure } from '../../tools/view/edit.js';

export default commandFromTool(viewSetExposure);
