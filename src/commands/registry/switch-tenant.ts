import { commandFromTool } from '../../cli/command-from-tool.js';
import { switchTenantId } from '../../tools/registry/tenant.js';

export default commandFromTool(switchTenantId);
