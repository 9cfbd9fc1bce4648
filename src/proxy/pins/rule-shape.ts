/**
 * What a rule of `mcpkit server scan` is: its kind, severity, words for a person, and what it
 * matches. Separate from the rules themselves (./scan-rules.ts lists them, each family of attack in
 * a file of its own) so that every family, the scanner (./scan.ts) and SARIF (./sarif.ts) share one
 * shape without importing the table. Each rule carries examples that must and must not match it,
 * which the rule table test (test/proxy/pins/scan.test.ts) runs both ways; an example is a tool's
 * description, or, for rules that look across tools, whole servers.
 *
 * Kinds: `text` rules match their patterns in every string of a definition (descriptions, titles,
 * parameter names and descriptions, enum values, _meta); `hidden` finds invisible characters
 * (core/invisible.ts); `parameter` looks at each parameter whose name carries no purpose together
 * with what it is told to hold; `mention`, `collision` and `confusable` compare tools across
 * servers; `tampered` is a pin whose text does not match its hash; `schema`, a schema's size expanded.
 */
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/** A tool as an example gives it: a description alone, or the parts a rule needs. */
export interface ExampleTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/** An example: a tool description, or servers with their tools (rules that compare tools). */
export type RuleExample = string | Record<string, ExampleTool[]>;

export interface ScanRule {
  id: string;
  name: string;
  kind: 'text' | 'hidden' | 'parameter' | 'mention' | 'collision' | 'confusable' | 'tampered' | 'schema';
  severity: Severity;
  /** What the rule finds, in one line. */
  summary: string;
  /** What a person does about a finding. */
  help: string;
  /**
   * `text` and `parameter` rules: what matches (case-insensitive). Run on RE2's linear engine
   * (core/regexp/linear-regexp.ts): no lookaround, no backreferences; the rule table test compiles each.
   */
  patterns?: RegExp[];
  /**
   * What must not count though a pattern matches it, where a pattern would need lookaround: each
   * mask's capturing group `group` is blanked (same length, so offsets hold) before the patterns
   * run. Linear too.
   */
  masks?: { pattern: RegExp; group: number }[];
  /** `parameter`: names of parameters that carry no purpose of their own. */
  names?: RegExp;
  examples: { match: RuleExample[]; clean: RuleExample[] };
}

/** What a person does about most findings: the same advice, said the same way by every family. */
export const REVIEW = 'Read the whole definition (mcpkit server diff NAME shows it); approve only a server you trust, or remove it.';
