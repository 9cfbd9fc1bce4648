import type { Tool } from '@modelcontextprotocol/server';
import { idf, termWeight } from '../../core/bm25.js';

/**
 * Ranks tools for the search meta-tools (./meta-tools.ts) against a task in an agent's words.
 * BM25F over weighted fields, each normalised by its own length: the name (split on `_`, `-`, `.` and camelCase), the title, the first
 * sentence of the description (which says when to use the tool) above the rest of it, parameter
 * names and descriptions, and where the tool comes from (its server, or mcpkit's group). Terms are
 * folded to a light stem ("relationships" ~ "relation", "deleting" ~ "delete"); a query term also
 * matches, at a discount, the words a tool description uses for the same thing ("folder" finds
 * "directory", "link" finds "edge"). A tool that covers more of the query's terms ranks higher
 * than one that repeats a single term. Measured on test/fixtures/tool-search-eval.json. Ties go
 * to the name, byte-wise, so results are deterministic. Pure.
 */
const STOP = new Set(
  'a an and are as at be by can could do does for from how i in into is it its me my of on or our should so that the their them then there these this those to want was we what when where which who will with would you your'.split(
    ' ',
  ),
);
/**
 * BM25F's saturation of a term's weighted count over the fields, measured on the evaluation set's
 * tuning phrasings (top-1 62% -> 75% against per-document BM25 with k1 2; held-out 60% -> 64%).
 */
const K1 = 5;
/** How much a synonym's match counts against the word's own. */
const SYNONYM_WEIGHT = 0.7;

/**
 * Words agents use for what tool descriptions call otherwise, both ways within a group. Generic
 * software vocabulary, not any one catalog's: verbs of CRUD and search, and the nouns of files,
 * databases and graphs.
 */
const SYNONYM_GROUPS = [
  'delete remove drop forget erase purge',
  'create add make new register insert',
  'store save write persist',
  'find search lookup locate grep query',
  'list show enumerate',
  'read open view fetch get load',
  'update edit modify patch change alter',
  'enable activate',
  'disable deactivate',
  'folder directory dir',
  'file document',
  'record document row',
  'collection table',
  'vertex node',
  'edge link connect relation',
  'rename move',
  'index lookup speed fast faster',
  'bulk batch many thousand multiple several',
  'view toolset catalog',
  'filter hide exclude include allow',
  'fact observation',
  'remember memory',
  'dump read export backup',
  'plan explain',
  'repeat echo',
  'config configuration setting',
  'check validate verify test',
  'install add',
  'compress gzip zip',
  'code source codebase',
  'version release',
];

/** Phrasal verbs, read as the one word a tool description would use. */
const PHRASES: [RegExp, string][] = [
  [/\b(turn|switch|shut) off\b/g, 'disable'],
  [/\b(turn|switch) on\b/g, 'enable'],
  [/\blook(s|ing)? up\b/g, 'lookup'],
  [/\bset(ting)? up\b/g, 'create'],
  [/\bget(ting)? rid of\b/g, 'delete'],
  [/\bbring (\w+ )?back\b/g, 'restore'],
  [/\bcode ?base\b/g, 'code'],
];

/** Plurals no suffix rule folds. */
const IRREGULAR: Record<string, string> = { vertices: 'vertex', indices: 'index', children: 'child', people: 'person', analyses: 'analysis' };

export function tokenize(text: string): string[] {
  let spaced = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  for (const [phrase, word] of PHRASES) spaced = spaced.replace(phrase, word);
  return spaced
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1 && !STOP.has(t))
    .map(stem);
}

/** Folds word forms together: "entities" ~ "entity", "relationships" ~ "relation", "created" ~ "create". */
export function stem(word: string): string {
  let w = IRREGULAR[word] ?? word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ss|ch|sh|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 6 && w.endsWith('ship')) w = w.slice(0, -4);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = w.slice(0, -2);
  if (w.length > 6 && w.endsWith('ation')) w = w.slice(0, -3);
  else if (w.length > 5 && /[st]ion$/.test(w)) w = w.slice(0, -3);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  // "mapped" ~ "map", "running" ~ "run"
  if (w.length > 3 && /([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

const SYNONYMS: Map<string, string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = group.split(' ').map(stem);
    for (const s of stems) {
      const set = map.get(s) ?? new Set<string>();
      for (const other of stems) if (other !== s) set.add(other);
      map.set(s, set);
    }
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
})();

/** The fields of a tool the search reads, each with its weight and how much its length counts (BM25F). */
const FIELDS = {
  name: { weight: 4, b: 0.5 },
  title: { weight: 2, b: 0.5 },
  first: { weight: 1.5, b: 0.75 },
  rest: { weight: 0.5, b: 0.75 },
  source: { weight: 0.5, b: 0.75 },
  params: { weight: 1, b: 0.75 },
  paramText: { weight: 0.3, b: 0.75 },
} as const;
type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];

interface Doc {
  name: string;
  /** The name's terms in order: a query that is exactly these names the tool. */
  nameTerms: string;
  /** Each field's term counts, and its length in terms. */
  fields: Record<Field, { tf: Map<string, number>; length: number }>;
}

export interface SearchIndex {
  docs: Doc[];
  df: Map<string, number>;
  /** Each field's average length over the tools. */
  avgLength: Record<Field, number>;
}

export interface SearchHit {
  name: string;
  score: number;
  /** The query is the tool's name (its words, in order). */
  exact?: true;
}

/** A tool, and where it comes from in words (its server's name and description, or mcpkit's group). */
export interface SearchDoc {
  tool: Tool;
  source?: string;
}

function fieldOf(texts: (string | undefined)[]): { tf: Map<string, number>; length: number } {
  const tf = new Map<string, number>();
  let length = 0;
  for (const text of texts) {
    if (!text) continue;
    const terms = tokenize(text);
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    length += terms.length;
  }
  return { tf, length };
}

/** The first sentence of a description (up to the first ". " or line end), and the rest. */
function splitDescription(text: string | undefined): [string, string] {
  if (!text) return ['', ''];
  const end = text.search(/\.(\s|$)|\n/);
  return end < 0 ? [text, ''] : [text.slice(0, end), text.slice(end + 1)];
}

export function buildSearchIndex(entries: readonly SearchDoc[]): SearchIndex {
  const df = new Map<string, number>();
  const docs = entries.map(({ tool, source }): Doc => {
    const [first, rest] = splitDescription(tool.description);
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    const fields: Doc['fields'] = {
      name: fieldOf([tool.name]),
      title: fieldOf([tool.title]),
      first: fieldOf([first]),
      rest: fieldOf([rest]),
      source: fieldOf([source]),
      params: fieldOf(Object.keys(properties)),
      paramText: fieldOf(Object.values(properties).map((p) => p?.description)),
    };
    const terms = new Set(FIELD_NAMES.flatMap((f) => [...fields[f].tf.keys()]));
    for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1);
    return { name: tool.name, nameTerms: tokenize(tool.name).join(' '), fields };
  });
  const avgLength = Object.fromEntries(
    FIELD_NAMES.map((f) => [f, docs.length ? docs.reduce((sum, d) => sum + d.fields[f].length, 0) / docs.length || 1 : 1]),
  ) as Record<Field, number>;
  return { docs, df, avgLength };
}

/**
 * A term's weight in a tool (BM25F): its counts in each field, weighted, each field's length
 * normalised against that field's average (a long description does not dilute the name), then
 * saturated once by k1.
 */
function fieldWeight(index: SearchIndex, doc: Doc, term: string, rarity: number): number {
  let tf = 0;
  for (const f of FIELD_NAMES) {
    const field = doc.fields[f];
    const n = field.tf.get(term);
    if (!n) continue;
    const { weight, b } = FIELDS[f];
    tf += (weight * n) / (1 - b + (b * field.length) / index.avgLength[f]);
  }
  return termWeight(rarity, tf, 1, 1, K1, 0);
}

/** What the search meta-tool answers: how many tools it searched, and the best ones. */
export type SearchAnswer = { total: number; results: { name: string; score: number; description: string }[] };

/** The best `limit` tools for a query; `keep`: only these names may be found (a client's rules). */
export function searchTools(index: SearchIndex, query: string, limit: number, keep?: ReadonlySet<string>): SearchHit[] {
  const asked = tokenize(query);
  const terms = [...new Set(asked)];
  const exact = asked.join(' ');
  const n = index.docs.length;
  const rarity = (term: string) => idf(n, index.df.get(term) ?? 0);
  const hits: SearchHit[] = [];
  for (const doc of index.docs) {
    if (keep && !keep.has(doc.name)) continue;
    const bm25 = (term: string) => fieldWeight(index, doc, term, rarity(term));
    let score = 0;
    let covered = 0;
    for (const term of terms) {
      // A word's own match, else the best of its synonyms' at a discount.
      let best = bm25(term);
      if (best === 0) for (const other of SYNONYMS.get(term) ?? []) best = Math.max(best, SYNONYM_WEIGHT * bm25(other));
      if (best > 0) covered++;
      score += best;
    }
    if (score <= 0) continue;
    // Covering more of the task's words beats repeating one of them.
    score *= (covered / terms.length) ** 0.5;
    hits.push({ name: doc.name, score: Math.round(score * 1000) / 1000, ...(doc.nameTerms === exact ? { exact: true } : {}) });
  }
  // A tool asked for by its own name comes first, however long its description makes it.
  hits.sort((a, b) => Number(b.exact ?? false) - Number(a.exact ?? false) || b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, limit);
}
