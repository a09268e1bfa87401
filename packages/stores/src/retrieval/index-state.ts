/**
 * A retrieval index's contents as plain arrays (SourceIndex.state() and fromState()), which
 * index-snapshot.ts writes to and reads from a file, and the format version of what they hold.
 */

/**
 * The version of what an index holds for a document: bump it when tokenising, stemming, stop
 * words, frequency quantisation or the posting layout change, so a saved index (index-snapshot.ts)
 * made by another version is rebuilt instead of read. Format 5: a part may be saved evicted (no
 * terms, `resident: false`), which a reader of format 4 would take for a scope without words.
 * Format 6: a part's stems are in the body (not the header), and each part records how recently
 * it was used (`recency`), so a reader decodes only the parts it keeps, and only when first read.
 * Format 7: an index records how many of its columns are the documents' own text (`own`), and in
 * one with context columns (episodes) each posting's value carries whether the term counts as the
 * document's own (doc-terms.ts postingTerms).
 * Format 8: a document also holds the word-delimiter terms (word-delimiter.ts: `fetchUserProfile`
 * as fetch, user, profile; `Node.js` as nodejs; `03` as 3; emoji; `C++`) and its stop words
 * written as names (`Will`, `IT`), so a saved index of format 7 or older lacks them and is rebuilt once.
 * Format 9: Russian and Arabic words are stemmed (stemmer.ts stemWord), so a saved index of format 8
 * or older holds them unstemmed and is rebuilt once.
 */
export const INDEX_FORMAT = 9;

/** One term of a snapshot: its document frequency and its posting list's contents. */
export interface TermState {
  stem: string;
  df: number;
  n: number;
  len: number;
  last: number;
  bytes: Uint8Array;
  skips: Int32Array;
}

/** Everything a SourceIndex holds, as arrays (index-snapshot.ts writes and reads it). */
export interface SourceIndexState {
  weights: readonly number[];
  /** How many of the first columns are the documents' own text (the others: context). */
  own: number;
  nextSlot: number;
  live: number;
  dead: number;
  /** Per slot 0..nextSlot-1. slotFacet is empty when no document has a facet. */
  slotDoc: Int32Array<ArrayBuffer>;
  slotPart: Int32Array<ArrayBuffer>;
  slotFacet: Int32Array<ArrayBuffer>;
  slotLen: Float64Array<ArrayBuffer>;
  /** Per row id: its slot, 0 when not indexed. */
  docSlot: Int32Array<ArrayBuffer>;
  /** Facet names by id - 1. */
  facets: readonly string[];
  /** Parts by id - 1. */
  parts: readonly PartState[];
}

/**
 * One scope part of a snapshot. A part not `resident` (evicted: see ScopeParts.evict, scope-parts.ts) has no
 * terms and no column totals here; its documents' slots are in the slot arrays, and reload()
 * gives it its postings again from the scope's rows.
 */
export interface PartState {
  scope: string;
  docs: number;
  resident: boolean;
  /**
   * How recently the part was used, among the parts of its index: higher is more recent, 0 for a
   * part not resident or without documents. A reader that keeps fewer parts keeps the highest.
   */
  recency: number;
  colTotals: Float64Array;
  /** Empty when `saved` is set. */
  terms: readonly TermState[];
  /**
   * Set by a reader of a saved index (decodeSnapshot) for a resident part: its terms, read from
   * the saved bytes only when called, so SourceIndex.fromState decodes the part at its first use
   * instead of at the start.
   */
  saved?: () => readonly TermState[];
}
