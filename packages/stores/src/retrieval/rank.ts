/**
 * The one order of retrieval candidates, used wherever it is decided: an index's best documents
 * per source (TopK), the merge of a transaction's changed records with the index, and the fused
 * ranking. Higher score first; equal scores, the earlier source (its place in RETRIEVAL_SOURCES;
 * within one source's index, the same for all), then the newer record (the higher row id: ids
 * grow with each record made). With one order everywhere, the candidates cut at a pool's end are
 * the ones the ranking would have put last, so a search for fewer hits is the first hits of a
 * search for more (given the same data and time).
 *
 * Negative when (scoreA, sourceA, rowA) ranks first, positive when the other does, 0 for the same
 * record.
 */
export function rankOrder(scoreA: number, sourceA: number, rowA: number, scoreB: number, sourceB: number, rowB: number): number {
  if (scoreA !== scoreB) return scoreA > scoreB ? -1 : 1;
  return sourceA - sourceB || rowB - rowA;
}

/** Whether (scoreA, rowA) ranks above (scoreB, rowB), both of one source: rankOrder. */
export function ranksAbove(scoreA: number, rowA: number, scoreB: number, rowB: number): boolean {
  return rankOrder(scoreA, 0, rowA, scoreB, 0, rowB) < 0;
}
