import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * BM25 ranking of tools for `search` exposure. A tool is a bag of terms from its name (weighted
 * 3), title (2), parameter names (1.5) and description and parameter descriptions (1). Names are
 * split on `_`, `-`, `.` and camelCase, so "searchIssues" and "search_issues" both match "issues".
 * Ties go to the name, byte-wise, so results are deterministic. Pure.
 */
const STOP = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'this', 'to', 'with']);
const K1 = 1.2;
const B = 0.75;

export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1 && !STOP.has(t))
    .map(stem);
}

/** A light plural/verb-form folding: "issues" ~ "issue", "searching" ~ "search". */
function stem(term: string): string {
  if (term.length > 4 && term.endsWith('ies')) return `${term.slice(0, -3)}y`;
  if (term.length > 5 && term.endsWith('ing')) return term.slice(0, -3);
  if (term.length > 3 && term.endsWith('s') && !term.endsWith('ss')) return term.slice(0, -1);
  return term;
}

interface Doc {
  name: string;
  tf: Map<string, number>;
  length: number;
}

export interface SearchIndex {
  docs: Doc[];
  df: Map<string, number>;
  avgLength: number;
}

export interface SearchHit {
  name: string;
  score: number;
}

function addTerms(tf: Map<string, number>, text: string | undefined, weight: number): number {
  if (!text) return 0;
  const terms = tokenize(text);
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + weight);
  return terms.length * weight;
}

export function buildSearchIndex(tools: readonly Tool[]): SearchIndex {
  const df = new Map<string, number>();
  const docs = tools.map((tool) => {
    const tf = new Map<string, number>();
    let length = addTerms(tf, tool.name, 3) + addTerms(tf, tool.title, 2) + addTerms(tf, tool.description, 1);
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    for (const [param, schema] of Object.entries(properties)) {
      length += addTerms(tf, param, 1.5) + addTerms(tf, schema?.description, 1);
    }
    for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    return { name: tool.name, tf, length };
  });
  const avgLength = docs.length ? docs.reduce((s, d) => s + d.length, 0) / docs.length : 1;
  return { docs, df, avgLength: avgLength || 1 };
}

export function searchTools(index: SearchIndex, query: string, limit: number): SearchHit[] {
  const terms = [...new Set(tokenize(query))];
  const n = index.docs.length;
  const hits: SearchHit[] = [];
  for (const doc of index.docs) {
    let score = 0;
    for (const term of terms) {
      const f = doc.tf.get(term);
      if (!f) continue;
      const df = index.df.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * doc.length) / index.avgLength));
    }
    if (score > 0) hits.push({ name: doc.name, score: Math.round(score * 1000) / 1000 });
  }
  hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, limit);
}
