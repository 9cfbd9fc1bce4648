import type { ToolGroup } from '../../tool/define.js';
import { codeRun, codeTypes } from './run.js';

export const codeGroup: ToolGroup = { name: 'code', summary: "code mode: scripts run against a view's tools", tools: [codeRun, codeTypes] };
