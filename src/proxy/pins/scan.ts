import { escapeInvisible, invisibleSpans } from '../../core/invisible.js';
import { readsLikeText, sameNameText } from './scan-wording.js';
import { SEVERITIES, type ScanRule, type Severity } from './rule-shape.js';
import { SCAN_RULES } from './scan-rules.js';
import { sectionOf, type PinFile } from '../../config/files/pin-file.js';
import { pinIntact } from './pins.js';
import { matchesOf, ruleMatchers, type MatchOptions } from './rule-match.js';
import { oversizedSchemas } from './schema-size-rule.js';

/**
 * `mcpkit server scan`: the rules of ./scan-rules.ts applied to tool definitions as the lock file
 * approves them (or as approve is about to record them). Offline and pure: text in, findings out.
 */

/** One tool to scan: its server, its own name, its pinned definition, and whether its pin holds up. */
export interface ScanTool {
  server: string;
  /** Its name in the lock file: a tool's or prompt's name, a resource's URI, a template's URI template. */
  tool: string;
  definition: unknown;
  tampered?: boolean;
  /** What it is, when not a tool: names are compared across servers for tools only. */
  kind?: 'prompts' | 'resources' | 'resource_templates';
}

export interface Finding {
  /** What was scanned, when not a tool. */
  kind?: ScanTool['kind'];
  rule: string;
  name: string;
  severity: Severity;
  server: string;
  tool: string;
  /** Where in the definition: `description`, `inputSchema.properties.sidenote.description`, `name`. */
  field: string;
  /** Where in that field's text (UTF-16 offsets), when the finding is a span of it. */
  span?: { start: number; length: number };
  /** The text found, invisible characters escaped, cut to a line. */
  excerpt: string;
  /** The finding in a sentence: the rule's summary and what was found. */
  message: string;
  /** What was found, for a line that already names the rule: the excerpt quoted, or what the rule says of it. */
  detail: string;
}

/** At most this many findings of one rule in one field: a page of text full of URLs is one story. */
const PER_FIELD = 3;

export function scanTools(all: readonly ScanTool[], rules: readonly ScanRule[] = SCAN_RULES, options: MatchOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const tools = all.filter((t) => t.kind === undefined);
  // Each definition's strings, walked once for every rule that reads them.
  const walked = new Map<ScanTool, Text[]>();
  const texts: TextsOf = (t) => walked.get(t) ?? walked.set(t, textsOf(t.definition)).get(t)!;
  for (const rule of rules) {
    if (rule.kind === 'text' || rule.kind === 'hidden') for (const t of all) findings.push(...textFindings(rule, t, texts, options));
    else if (rule.kind === 'parameter') for (const t of tools) findings.push(...parameterFindings(rule, t, options));
    else if (rule.kind === 'mention') findings.push(...mentionFindings(rule, tools, texts));
    else if (rule.kind === 'schema')
      for (const t of tools) for (const o of oversizedSchemas(t.definition)) findings.push(finding(rule, t, o.field, undefined, '', o.message));
    else if (rule.kind === 'collision' || rule.kind === 'confusable') findings.push(...nameFindings(rule, tools));
    else if (rule.kind === 'tampered') {
      for (const t of all.filter((x) => x.tampered)) {
        findings.push(finding(rule, t, 'sha256', undefined, '', `The pin of ${t.tool} does not match its own sha256: ${rule.summary}`));
      }
    }
  }
  return findings.sort(
    (a, b) =>
      SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity) ||
      a.server.localeCompare(b.server) ||
      a.tool.localeCompare(b.tool) ||
      a.rule.localeCompare(b.rule),
  );
}

/** Rules about a pair of tools (a mention, a collision, a look-alike): about the other server as much as this one. */
const PAIR_KINDS = new Set(['mention', 'collision', 'confusable']);
const PAIR_RULES = new Set(SCAN_RULES.filter((r) => PAIR_KINDS.has(r.kind)).map((r) => r.id));

/** What is said at once when something is pinned on first use: high or critical findings of the definitions themselves. */
export function alarming(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => (f.severity === 'high' || f.severity === 'critical') && !PAIR_RULES.has(f.rule));
}

/** Every pin of a lock file (tools, prompts, resources, templates) as the scanner takes it, with whether it holds up. */
export function pinnedScanTools(pins: PinFile): ScanTool[] {
  return (['tools', 'prompts', 'resources', 'resource_templates'] as const).flatMap((kind) =>
    Object.entries(sectionOf(pins, kind)).flatMap(([server, own]) =>
      Object.entries(own ?? {}).map(([tool, pin]) => ({
        server,
        tool,
        definition: (pin as { definition?: unknown } | undefined)?.definition ?? {},
        tampered: !pinIntact(pin, kind),
        ...(kind === 'tools' ? {} : { kind }),
      })),
    ),
  );
}

/** Whether any finding is at or above a severity. */
export function failsAt(findings: readonly Finding[], threshold: Severity): boolean {
  return findings.some((f) => SEVERITIES.indexOf(f.severity) >= SEVERITIES.indexOf(threshold));
}

function finding(rule: ScanRule, t: ScanTool, field: string, span: Finding['span'], text: string, message?: string): Finding {
  const excerpt = escapeInvisible(text.replace(/\s+/g, ' ').trim());
  const cut = excerpt.length > 80 ? `${excerpt.slice(0, 77)}...` : excerpt;
  return {
    ...(t.kind ? { kind: t.kind } : {}),
    rule: rule.id,
    name: rule.name,
    severity: rule.severity,
    server: t.server,
    tool: t.tool,
    field,
    ...(span ? { span } : {}),
    excerpt: cut,
    message: message ?? `${rule.summary}${cut ? ` Found: "${cut}"` : ''}`,
    detail: message ?? `"${cut}"`,
  };
}

/** A string of a definition and where it is. */
interface Text {
  field: string;
  text: string;
}
type TextsOf = (t: ScanTool) => readonly Text[];

/** A JSON Schema's own metadata: `$schema` and `$id` naming a dialect or a schema by its URI, nothing a model is told. */
const SCHEMA_URI = /(^|\.)\$(schema|id)$/;
const PLAIN_URI = /^[a-z][a-z0-9+.-]*:\/\/[^\s]*$/i;

/**
 * Every string a model reads in a definition, with where it is: values, and the names of
 * parameters and _meta keys. A schema's `$schema` or `$id` that is only a URI is left out (it
 * names the schema's dialect, and made most of a scan's findings); anything else in them is read.
 */
export function textsOf(value: unknown, path = ''): Text[] {
  if (typeof value === 'string') return SCHEMA_URI.test(path) && PLAIN_URI.test(value) ? [] : [{ field: path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => textsOf(v, `${path}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  const named = /(^|\.)(properties|_meta)$/.test(path);
  return Object.entries(value).flatMap(([key, v]) => {
    const at = path ? `${path}.${key}` : key;
    return [...(named ? [{ field: `${at} (name)`, text: key }] : []), ...textsOf(v, at)];
  });
}

function textFindings(rule: ScanRule, t: ScanTool, texts: TextsOf, options: MatchOptions): Finding[] {
  const out: Finding[] = [];
  const matchers = rule.kind === 'hidden' ? undefined : ruleMatchers(rule, options);
  for (const { field, text } of texts(t)) {
    const spans = matchers
      ? matchesOf(matchers, text, PER_FIELD)
      : invisibleSpans(text).map((s) => ({ start: s.start, length: s.length, found: `${text.slice(Math.max(0, s.start - 20), s.start + s.length)}` }));
    for (const s of spans.slice(0, PER_FIELD)) out.push(finding(rule, t, field, { start: s.start, length: s.length }, s.found));
  }
  return out;
}

function propertiesOf(definition: unknown): Record<string, { description?: unknown }> {
  const schema = (definition as { inputSchema?: { properties?: unknown } } | undefined)?.inputSchema;
  const props = schema?.properties;
  return props && typeof props === 'object' && !Array.isArray(props) ? (props as Record<string, { description?: unknown }>) : {};
}

function parameterFindings(rule: ScanRule, t: ScanTool, options: MatchOptions): Finding[] {
  const out: Finding[] = [];
  const toolText = String((t.definition as { description?: unknown } | undefined)?.description ?? '');
  const matchers = ruleMatchers(rule, options);
  for (const [param, spec] of Object.entries(propertiesOf(t.definition))) {
    if (!matchers.names?.test(param)) continue;
    const own = typeof spec?.description === 'string' ? spec.description : '';
    const named = containsWord(toolText, param);
    const told = matchesOf(matchers, own, PER_FIELD)[0] ?? (named ? matchesOf(matchers, toolText, PER_FIELD)[0] : undefined);
    if (!told) continue;
    out.push(
      finding(
        rule,
        t,
        `inputSchema.properties.${param}`,
        undefined,
        told.found,
        `Parameter "${param}" has no purpose of its own and is told to carry: "${told.found}".`,
      ),
    );
  }
  return out;
}

/** Names specific enough that a mention is one: with a separator, or camelCase, five characters or more. Pure. */
export function specificName(name: string): boolean {
  return name.length >= 5 && (/[_.-]/.test(name) || /[a-z][A-Z]/.test(name));
}

/** Whether `word` stands in `text` as a word of its own (not inside a longer one), either case; by indexOf, linear. Pure. */
export function containsWord(text: string, word: string): boolean {
  if (word === '') return false;
  const haystack = text.toLowerCase();
  const needle = word.toLowerCase();
  const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (!isWord(haystack[at - 1]) && !isWord(haystack[at + needle.length])) return true;
  }
  return false;
}

/**
 * Where the other servers' tool names stand in a text as names of their own (not part of a longer
 * name: `[\w.-]` may not come before, nor `[\w-]` after), each by its first place: the text's runs
 * of name characters are looked up, so the cost is the text's, not the text's times the tools'. Pure.
 */
export function namesMentioned(text: string, names: ReadonlySet<string>): Map<string, number> {
  const found = new Map<string, number>();
  for (const run of text.matchAll(/[\w.-]+/g)) {
    // A name may end where a "." follows it (send_email. ends a sentence), never inside a word.
    const word = run[0];
    for (let end = word.length; end > 0; end = word.lastIndexOf('.', end - 1)) {
      const name = word.slice(0, end);
      if (names.has(name) && !found.has(name)) found.set(name, run.index);
      if (end === 0) break;
    }
  }
  return found;
}

function mentionFindings(rule: ScanRule, tools: readonly ScanTool[], textsOfTool: TextsOf): Finding[] {
  const out: Finding[] = [];
  const others = tools.filter((t) => specificName(t.tool));
  const specific = new Set(others.map((o) => o.tool));
  for (const t of tools) {
    const texts = textsOfTool(t)
      .filter((x) => !x.field.endsWith('(name)') && x.field !== 'name')
      .map((x) => ({ ...x, names: namesMentioned(x.text, specific) }));
    for (const other of others) {
      if (other.server === t.server) continue;
      const hit = texts.find((x) => x.names.has(other.tool));
      if (!hit) continue;
      const start = hit.names.get(other.tool)!;
      out.push(
        finding(
          rule,
          t,
          hit.field,
          { start, length: other.tool.length },
          hit.text.slice(Math.max(0, start - 30), start + other.tool.length + 30),
          `It names "${other.tool}", a tool of server "${other.server}".`,
        ),
      );
    }
  }
  return out;
}

/** Look-alikes a name can hide behind: Cyrillic and Greek letters that render as Latin ones, and digits that pass for letters. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ɡ: 'g',
  ӏ: 'l',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  τ: 't',
  ι: 'i',
  κ: 'k',
  χ: 'x',
  ε: 'e',
  '0': 'o',
  '1': 'l',
  '3': 'e',
  '5': 's',
  '|': 'l',
  '-': '_',
};

/** What a name looks like to a reader: NFKC, lower case, look-alikes folded, so `create_іssue` and `Create_Issue` read as `create_issue`. Pure. */
export function nameSkeleton(name: string): string {
  return [...name.normalize('NFKC').toLowerCase()].map((c) => LOOK_ALIKES[c] ?? c).join('');
}

function nameFindings(rule: ScanRule, tools: readonly ScanTool[]): Finding[] {
  const groups = new Map<string, ScanTool[]>();
  for (const t of tools) {
    const key = rule.kind === 'collision' ? t.tool : nameSkeleton(t.tool);
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const out: Finding[] = [];
  for (const group of groups.values()) {
    if (rule.kind === 'collision' && new Set(group.map((t) => t.server)).size < 2) continue;
    if (rule.kind === 'confusable' && new Set(group.map((t) => t.tool)).size < 2) continue;
    for (const t of group) {
      const like = group.filter((o) => (rule.kind === 'collision' ? o.server !== t.server : o.tool !== t.tool));
      if (!like.length) continue;
      const what = rule.kind === 'collision' ? sameNameText(t.tool, [t.server, ...like.map((o) => o.server)]) : readsLikeText(t.tool, like);
      out.push(finding(rule, t, 'name', { start: 0, length: t.tool.length }, t.tool, what));
    }
  }
  return out;
}
