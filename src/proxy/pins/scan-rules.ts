/**
 * The rules of `mcpkit server scan`, as one table in the order of their ids: what in an approved
 * tool definition reads as an attack on the model that will see it. Data only; ./scan.ts applies
 * them and ./sarif.ts writes them out, both in this order. A rule lives in the file of the family
 * of attack it detects; what a rule is, is ./rule-shape.ts. The one rule about the lock file itself
 * (a tampered pin) is here: it reads no definition's text, so no family of attack holds it.
 */
import type { ScanRule } from './rule-shape.js';
import { CONCEALMENT_RULES } from './rules-concealment.js';
import { CROSS_SERVER_RULES } from './rules-cross-server.js';
import { EXFILTRATION_RULES } from './rules-exfiltration.js';
import { MODEL_DIRECTIVE_RULES } from './rules-model-directives.js';
import { SCHEMA_SIZE_RULE } from './schema-size-rule.js';

export { SEVERITIES, type ExampleTool, type RuleExample, type ScanRule, type Severity } from './rule-shape.js';

const TAMPERED_PIN: ScanRule = {
  id: 'MCPK001',
  name: 'tampered-pin',
  kind: 'tampered',
  severity: 'critical',
  summary: 'A pin in the lock file whose readable definition does not match its own sha256: the text reviewed is not what was approved.',
  help: 'Restore the lock file from version control, or review and approve the server again.',
  examples: { match: [], clean: [] },
};

/**
 * Every rule, by id: the order findings and SARIF's rule list come in. The ids are ASCII
 * (MCPK and three digits), so code-unit order is their order; localeCompare would set up ICU's
 * collator (~20 ms of CPU) in every serve that loads the scanner, for nothing.
 */
export const SCAN_RULES: readonly ScanRule[] = [
  TAMPERED_PIN,
  ...CONCEALMENT_RULES,
  ...MODEL_DIRECTIVE_RULES,
  ...EXFILTRATION_RULES,
  ...CROSS_SERVER_RULES,
  SCHEMA_SIZE_RULE,
].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
