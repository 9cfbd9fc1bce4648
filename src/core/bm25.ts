/**
 * Okapi BM25, the one ranking formula of mcpkit's searches (the tool search's index, smart_search's
 * files). Each caller keeps its own k1, measured on its own evaluation: short tool descriptions
 * rank best with repeats saturating late (k1 2), whole files with the usual 1.2. Pure.
 */

/** How rare a term is among `docs` documents, `holding` of which hold it (BM25's idf, never negative). */
export function idf(docs: number, holding: number): number {
  return Math.log(1 + (docs - holding + 0.5) / (holding + 0.5));
}

/** A term's weight in one document: `rarity` from idf, `tf` occurrences, repeats saturating by k1 and long documents normalised by b. */
export function termWeight(rarity: number, tf: number, length: number, averageLength: number, k1: number, b = 0.75): number {
  if (tf <= 0) return 0;
  return (rarity * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * length) / averageLength));
}
