import { BM25_B, BM25_K1 } from './score.js';
import { PostingCursor, PostingList, SKIP_EVERY, writePosting } from './postings.js';
import { INLINE_POSTINGS, NO_BYTES, Term, appendInline, isOne, onePostingOf, oneQ, oneSlot } from './small-postings.js';
import { TopK } from './top-k.js';
import { walkPostings } from './posting-walk.js';
import { postingTerms } from './doc-terms.js';
import { LoadSizes } from './load-sizes.js';
import { ScopeParts, type Part } from './scope-parts.js';
import type { SourceIndexState } from './index-state.js';

export { columnTerms } from './doc-terms.js';
export { INDEX_FORMAT, type PartState, type SourceIndexState, type TermState } from './index-state.js';

/**
 * An in-memory inverted index of one retrieval source (episodes, facts, ...), partitioned by scope
 * (layer and user_id): each scope has its own terms, document frequencies and column lengths, so
 * one user's records never change another's ranking and a small scope is never crowded out by a
 * large one. No database code here: index-sync.ts keeps it in step with SQLite. This file indexes
 * documents and scores them (top); which scope parts hold their postings in memory (eviction,
 * reload, decoding a saved part at its first use) is scope-parts.ts's.
 *
 * Layout, chosen for memory (about two bytes a posting, no object per document):
 *  - every indexed version of a document gets a slot; per-slot typed arrays hold its row id, its
 *    scope part, its facet (wiki_type) and its weighted length;
 *  - a term's postings (postings.ts) are (slot, weighted tf * 10) pairs in slot order, which is
 *    the order documents were (re)indexed, newest last, delta- and varint-coded;
 *  - a term of one posting is a number in its part's map (ONE_POSTING); a list of at most
 *    INLINE_POSTINGS postings (most terms of a small scope, the rare words of a large one) is kept
 *    inline, in one byte buffer per scope part, and moves to a PostingList of its own when it
 *    grows past that: a PostingList is an object and two typed arrays, about 470 bytes even for
 *    one 2-byte posting, which made a small tenant cost 16-27 KB;
 *  - removing a document frees its slot (the part is set to 0) and takes its terms off the
 *    document frequencies (a term none holds goes, with its postings); its other postings stay
 *    until the whole index is rebuilt (see `dead`).
 */

/** Largest slot number; the owner rebuilds the index (which renumbers) before it is reached. */
export const MAX_SLOT = 2 ** 31 - 1;
/**
 * Postings read per search and source, shared among the query's terms. A term with more postings
 * is read from its newest end, so the cost of a search stays bounded however large the store grows
 * (the rescoring of the candidates still counts every term).
 */
export const WALK_BUDGET = 12_000;

/** A document as the index sees it: its row id, scope key, optional facet and indexed column texts. */
export interface IndexedDoc {
  id: number;
  scope: string;
  facet: string | null;
  columns: readonly string[];
}

/**
 * A source's indexed columns: each one's weight, and how many of the first are the record's own
 * text (the others are context: an episode's neighbouring thoughts).
 */
export interface IndexColumns {
  weights: readonly number[];
  own: number;
}

/** A query term with the idf the caller computed over every searched source. */
export interface ScoredTerm {
  stem: string;
  idf: number;
}

/** One document of a top() answer: its row id, BM25 score and which query terms it holds. */
export interface IndexHit {
  id: number;
  score: number;
  mask: number;
}

export interface PartStats {
  docs: number;
  /** Mean tokens per column (stop words included, as the rescoring counts them). */
  avgLen: number[];
}

function grow<T extends Int32Array | Float64Array>(a: T, min: number): T {
  if (a.length > min) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(min + 1, Math.ceil(a.length * 1.5) + 16));
  next.set(a);
  return next;
}

export class SourceIndex {
  private slotDoc = new Int32Array(64);
  private slotPart = new Int32Array(64);
  /** Allocated once a document with a facet is added (only wiki pages have one). */
  private slotFacet = new Int32Array(0);
  private slotLen = new Float64Array(64);
  private docSlot = new Int32Array(64);
  /** The scope parts, and which of them hold their postings in memory (scope-parts.ts). */
  private readonly parts: ScopeParts;
  private readonly facets = new Map<string, number>();
  /** Where top() writes the one posting of single-posting terms for its cursors. */
  private scratch = new Uint8Array(64);
  private nextSlot = 1;
  /** Documents indexed now. */
  live = 0;
  /** Slots freed since the index was built: their postings are dead weight until a rebuild. */
  dead = 0;

  /**
   * `inlinePostings`: how many postings a term keeps inline before it gets a PostingList (0: every
   * term gets one at once; the answers are the same either way, only the memory differs).
   * `maxResident`: scope parts kept with their postings; past it the least recently used is
   * evicted (scope-parts.ts). `own`: how many of the first columns are the document's own text; the
   * others are its context (an episode's neighbouring thoughts), which counts in BM25 but, unless
   * it asks something (doc-terms.ts postingTerms), leaves a document holding a term only there out
   * of the term's bit of a hit's mask (see top()).
   */
  constructor(
    readonly weights: readonly number[],
    private readonly inlinePostings = INLINE_POSTINGS,
    maxResident = Number.POSITIVE_INFINITY,
    readonly own = weights.length,
  ) {
    if (!Number.isInteger(own) || own < 1 || own > weights.length) throw new Error(`own must be an integer from 1 to ${weights.length}, not ${own}`);
    if (!Number.isInteger(inlinePostings) || inlinePostings < 0 || inlinePostings > SKIP_EVERY) {
      throw new Error(`inlinePostings must be an integer from 0 to ${SKIP_EVERY}, not ${inlinePostings}`);
    }
    if (!(maxResident >= 1)) throw new Error(`maxResident must be at least 1, not ${maxResident}`);
    this.parts = new ScopeParts(weights.length, inlinePostings, maxResident);
  }

  /**
   * Index many documents into an empty index at once (a build), in two passes over `docs()`: the
   * first works out each term's postings and their exact encoded size, the second fills lists
   * allocated once at that size. Growing them step by step instead would copy each many times and
   * leave the process's memory fragmented by the freed copies. `expected` sizes the per-slot
   * arrays up front.
   */
  load(docs: () => Iterable<IndexedDoc>, expected = 0): void {
    if (this.nextSlot !== 1) throw new Error('load() builds an empty index');
    const sizes = new LoadSizes(this.weights, this.own);
    for (const d of docs()) sizes.measure(d.scope, d.columns);
    this.reserve(sizes, expected);
    for (const d of docs()) this.add(d);
  }

  /**
   * Between the two passes of a build into an empty index (load(), or a build in slices:
   * index-build.ts): make the parts of the measured scopes and allocate each term's postings at
   * the measured size, so the second pass's add() fills them without growing them.
   */
  reserve(sizes: LoadSizes, expected = 0): void {
    if (this.nextSlot !== 1) throw new Error('reserve() prepares an empty index');
    this.ensureSlot(Math.max(expected, sizes.docs));
    for (const [scope, perPart] of sizes.parts) {
      const part = this.parts.part(scope);
      let inline = 0;
      for (const e of perPart.values()) if (e.n <= this.inlinePostings && !isOne(e.n, e.q, this.inlinePostings)) inline += e.bytes;
      part.inline = inline > 0 ? new Uint8Array(inline) : NO_BYTES;
      for (const [stem, e] of perPart) {
        // add() makes a term of one posting the number it is kept as.
        if (isOne(e.n, e.q, this.inlinePostings)) continue;
        const t = new Term();
        if (e.n > this.inlinePostings) t.list = new PostingList(e.bytes, e.n);
        else {
          t.off = part.used;
          t.cap = e.bytes;
          part.used += e.bytes;
        }
        part.terms.set(stem, t);
      }
    }
  }

  /**
   * After a build whose second pass indexed other documents than its first measured (a build in
   * slices while the table changed): take out the terms reserve() made that no document holds
   * (a removed record's words must not stay, see unpost), and the parts left without documents.
   */
  dropUnreserved(): void {
    for (const part of this.parts.list) {
      if (part === null) continue;
      if (part.docs === 0) {
        if (part.resident) this.parts.empty(part);
        continue;
      }
      if (!part.resident) continue;
      for (const [stem, t] of part.terms) {
        if (typeof t === 'number' || t.df > 0) continue;
        part.terms.delete(stem);
        if (t.list === null) part.garbage += t.cap;
      }
    }
  }

  /**
   * The index's contents, as views of its arrays (valid until the index next changes). A part's
   * `recency` ranks the resident parts and those not decoded yet by use: the latter first, in the
   * order they were saved, then the least recently used resident part up to the most recent.
   */
  state(): SourceIndexState {
    const slots = this.nextSlot;
    const { renumber, parts } = this.parts.snapshot();
    let slotPart = this.slotPart.subarray(0, slots);
    if (renumber !== null) {
      const mapped = new Int32Array(slots);
      for (let s = 1; s < slots; s++) mapped[s] = renumber[slotPart[s]];
      slotPart = mapped;
    }
    return {
      weights: this.weights,
      own: this.own,
      nextSlot: slots,
      live: this.live,
      dead: this.dead,
      slotDoc: this.slotDoc.subarray(0, slots),
      slotPart,
      slotFacet: this.slotFacet.subarray(0, Math.min(this.slotFacet.length, slots)),
      slotLen: this.slotLen.subarray(0, slots),
      docSlot: this.docSlot,
      facets: [...this.facets.keys()],
      parts,
    };
  }

  /**
   * An index holding a state() taken earlier. It owns the slot arrays (the caller hands over
   * copies); the terms' postings are copied (inline into their part's buffer, or each into a list
   * of its own), so their arrays may view a larger buffer, such as the file they were read from.
   * Its parts come back as ScopeParts.restore says: one read from a file is decoded at its first
   * use, and at most `maxResident` of those are kept.
   */
  static fromState(s: SourceIndexState, inlinePostings = INLINE_POSTINGS, maxResident = Number.POSITIVE_INFINITY): SourceIndex {
    const index = new SourceIndex(s.weights, inlinePostings, maxResident, s.own);
    // Taken as they are: add() grows them (ensureSlot) when the next slot does not fit.
    index.slotDoc = s.slotDoc;
    index.slotPart = s.slotPart;
    index.slotFacet = s.slotFacet;
    index.slotLen = s.slotLen;
    index.docSlot = s.docSlot;
    index.nextSlot = s.nextSlot;
    index.live = s.live;
    index.dead = s.dead;
    for (const f of s.facets) index.facetId(f);
    index.parts.restore(s.parts);
    return index;
  }

  /** Slots handed out so far; the owner rebuilds before MAX_SLOT. */
  get slotsUsed(): number {
    return this.nextSlot - 1;
  }

  has(id: number): boolean {
    return id < this.docSlot.length && this.docSlot[id] !== 0;
  }

  /** Index a document (a previous version must have been removed first). */
  add(doc: IndexedDoc): void {
    if (this.has(doc.id)) throw new Error(`document ${doc.id} is already indexed`);
    const slot = this.nextSlot++;
    if (slot > MAX_SLOT) throw new Error(`the retrieval index holds at most ${MAX_SLOT} document versions per source`);
    this.ensureSlot(slot);
    const part = this.parts.part(doc.scope);
    const { tf, len, lengths } = postingTerms(this.weights, this.own, doc.columns);
    // A part not decoded yet is decoded first; an evicted part only counts the document: reload()
    // reads its postings from the rows. Counted before touch(), which leaves out empty parts.
    this.parts.materialise(part);
    part.docs++;
    if (part.resident) {
      this.post(part, slot, tf, lengths);
      this.parts.touch(part);
    }
    this.slotDoc[slot] = doc.id;
    this.slotPart[slot] = part.id;
    if (doc.facet !== null) {
      if (this.slotFacet.length < this.slotDoc.length) this.slotFacet = grow(this.slotFacet, this.slotDoc.length - 1);
      this.slotFacet[slot] = this.facetId(doc.facet);
    }
    this.slotLen[slot] = len;
    if (doc.id >= this.docSlot.length) this.docSlot = grow(this.docSlot, doc.id);
    this.docSlot[doc.id] = slot;
    this.live++;
  }

  /** Add a document's postings (stem to posting value: postingTerms) at `slot` to a resident part, and its column lengths to the totals. */
  private post(part: Part, slot: number, tf: Map<string, number>, lengths: readonly number[]): void {
    if (part.colTotals === this.parts.noTotals) part.colTotals = new Float64Array(this.weights.length);
    for (let c = 0; c < lengths.length; c++) part.colTotals[c] += lengths[c];
    for (const [stem, q] of tf) {
      const was = part.terms.get(stem);
      if (was === undefined && isOne(1, q, this.inlinePostings)) {
        part.terms.set(stem, onePostingOf(slot, q));
        continue;
      }
      let t: Term;
      if (was === undefined || typeof was === 'number') {
        t = new Term();
        if (was !== undefined) {
          // The term's one posting moves into an inline list (set() keeps the term's place).
          appendInline(part, t, oneSlot(was), oneQ(was), this.inlinePostings);
          t.df = 1;
        }
        part.terms.set(stem, t);
      } else t = was;
      if (t.list !== null) t.list.append(slot, q);
      else appendInline(part, t, slot, q, this.inlinePostings);
      t.df++;
    }
  }

  /**
   * Mark a scope used (a search is about to read it): it becomes the most recently used part.
   * Returns false when the scope's part is evicted, which the caller must reload() before any
   * stats(), df() or top() of it; true when it is resident or the index has nothing of the scope.
   */
  use(scope: string): boolean {
    return this.parts.use(scope);
  }

  /**
   * Give an evicted scope part its postings again, from `docs`: the scope's current rows, which
   * must be exactly the versions indexed (read at the index's cursor). Postings are made in slot
   * order, at each document's own slot, so the part answers as before its eviction (less the
   * dead postings of versions removed since, as a rebuild would). Returns false, leaving the part
   * evicted, when the rows are not those versions (another document count, an id not indexed in
   * this scope, another weighted length); the caller then rebuilds the index.
   */
  reload(scope: string, docs: readonly IndexedDoc[]): boolean {
    const part = this.parts.get(scope);
    if (!part) return docs.length === 0;
    if (this.parts.materialise(part)) return true;
    if (docs.length !== part.docs) return false;
    const found: { slot: number; tf: Map<string, number>; lengths: number[] }[] = [];
    for (const d of docs) {
      if (!this.has(d.id)) return false;
      const slot = this.docSlot[d.id];
      const { tf, len, lengths } = postingTerms(this.weights, this.own, d.columns);
      if (this.slotPart[slot] !== part.id || this.slotLen[slot] !== len) return false;
      found.push({ slot, tf, lengths });
    }
    found.sort((a, b) => a.slot - b.slot);
    this.parts.reinstate(part);
    for (const f of found) this.post(part, f.slot, f.tf, f.lengths);
    this.parts.touch(part);
    return true;
  }

  /** Scope parts resident now with documents (with their postings): at most maxResident. */
  get residentParts(): number {
    return this.parts.residentParts;
  }

  /** Scope parts read from a saved index and not decoded yet: at most maxResident. */
  get savedParts(): number {
    return this.parts.savedParts;
  }

  /**
   * Take a document out, given the column texts of the version that was indexed: its terms leave
   * the document frequencies, and a term no live document holds leaves the index. Returns false
   * when the id is not indexed.
   */
  remove(id: number, columns: readonly string[]): boolean {
    if (!this.has(id)) return false;
    const slot = this.docSlot[id];
    // A live slot's part has documents, so it was not emptied.
    const part = this.parts.list[this.slotPart[slot] - 1] as Part;
    // A part not decoded yet is decoded first; an evicted part only counts the document out:
    // reload() reads what is left from the rows.
    this.parts.materialise(part);
    if (part.resident) this.unpost(part, columns);
    part.docs--;
    this.slotPart[slot] = 0;
    this.docSlot[id] = 0;
    this.live--;
    this.dead++;
    if (part.docs === 0) this.parts.empty(part);
    return true;
  }

  /** Take a removed version's terms off a resident part's frequencies, and its lengths off the totals. */
  private unpost(part: Part, columns: readonly string[]): void {
    const { tf, lengths } = postingTerms(this.weights, this.own, columns);
    for (let c = 0; c < lengths.length; c++) part.colTotals[c] -= lengths[c];
    for (const stem of tf.keys()) {
      const t = part.terms.get(stem);
      if (t === undefined) continue;
      if (typeof t === 'number') {
        part.terms.delete(stem);
        continue;
      }
      // No live document holds the term any more: every posting of it is dead, so the term goes
      // (a forgotten word must not stay in the saved index); a later document starts it again.
      if (--t.df === 0) {
        part.terms.delete(stem);
        if (t.list === null) part.garbage += t.cap;
      }
    }
  }

  stats(scope: string): PartStats {
    const part = this.parts.resident(scope);
    const docs = part?.docs ?? 0;
    return { docs, avgLen: this.weights.map((_, c) => (part && docs > 0 ? part.colTotals[c] / docs : 0)) };
  }

  /** Documents of the scope holding the stem. */
  df(scope: string, stem: string): number {
    const t = this.parts.resident(scope)?.terms.get(stem);
    return t === undefined ? 0 : typeof t === 'number' ? 1 : t.df;
  }

  /** Each term of the scope with its document frequency, in no set order (fuzzy-terms.ts reads a scope's vocabulary). */
  eachTerm(scope: string, visit: (stem: string, df: number) => void): void {
    const part = this.parts.resident(scope);
    if (part) for (const [stem, t] of part.terms) visit(stem, typeof t === 'number' ? 1 : t.df);
  }

  /**
   * The scope's best `pool` documents for the terms: BM25 over weighted columns (the formula of
   * score.ts without the proximity bonus), reading at most WALK_BUDGET postings, each term from its
   * newest end. Ties go to the newer record (the higher row id: rankOrder, rank.ts). `avgdl` is
   * the weighted mean length the scores are normalised against; `skip` holds row ids to leave out. Each answer's `mask` has bit i set when
   * terms[i] counts as the document's own: its own columns hold it, or a context column that asks
   * something (bit 31 for every term past the 31st: see hasTerm in score.ts). It is 0 only for a
   * document that holds the query's terms in a context that asks nothing, alone; such a
   * document's score is multiplied by `contextOnly` (1: scored as any other).
   */
  top(
    scope: string,
    terms: readonly ScoredTerm[],
    pool: number,
    avgdl: number,
    facet?: string | null,
    skip?: ReadonlySet<number>,
    contextOnly = 1,
  ): IndexHit[] {
    const part = this.parts.resident(scope);
    if (!part || pool <= 0 || terms.length === 0) return [];
    const facetId = facet === undefined || facet === null ? 0 : (this.facets.get(facet) ?? -1);
    if (facetId < 0) return [];
    const skipping = skip !== undefined && skip.size > 0;
    // BM25 term weight: idf * wtf * (k1 + 1) / (wtf + k1 * (1 - b) + k1 * b * len / avgdl).
    const base = BM25_K1 * (1 - BM25_B);
    const perLen = (BM25_K1 * BM25_B) / (avgdl > 0 ? avgdl : 1);
    const perTerm = Math.max(1, Math.floor(WALK_BUDGET / terms.length));
    // One cursor per term over its newest postings, merged in slot order: each document's terms
    // are summed in query order as it is reached, with no per-slot scratch memory.
    const cursors: PostingCursor[] = [];
    let scratchAt = 0;
    const nums: number[] = [];
    const bits: number[] = [];
    for (let ti = 0; ti < terms.length; ti++) {
      const qt = terms[ti];
      const t = part.terms.get(qt.stem);
      if (t === undefined || qt.idf <= 0) continue;
      let c: PostingCursor;
      if (typeof t === 'number') {
        // Written out for the cursor, 8 bytes a term at most (slot < 2^31, q < 2^21).
        if (scratchAt + 8 > this.scratch.length) this.scratch = new Uint8Array(Math.max(2 * this.scratch.length, 8 * terms.length));
        writePosting(this.scratch, scratchAt, oneSlot(t), 0, oneQ(t));
        c = PostingCursor.inline(this.scratch, scratchAt, 1, 0);
        scratchAt += 8;
      } else if (t.list !== null) {
        const list = t.list;
        if (list.n === 0) continue;
        c = PostingCursor.over(list, list.n - perTerm);
      } else {
        if (t.n === 0) continue;
        c = PostingCursor.inline(part.inline, t.off, t.n, t.n - perTerm);
      }
      if (!c.next()) continue;
      cursors.push(c);
      nums.push(qt.idf * (BM25_K1 + 1));
      bits.push(1 << Math.min(ti, 31));
    }
    const heap = new TopK(pool);
    const { slotPart, slotFacet, slotLen, slotDoc } = this;
    const pid = part.id;
    const admits = (slot: number): boolean =>
      slotPart[slot] === pid && (facetId === 0 || slotFacet[slot] === facetId) && !(skipping && skip.has(slotDoc[slot]));
    walkPostings(cursors, nums, bits, slotLen, slotDoc, base, perLen, heap, admits, this.own < this.weights.length, contextOnly);
    return heap.sorted().map((e) => ({ id: e.row, score: e.score, mask: e.mask }));
  }

  private facetId(facet: string): number {
    let id = this.facets.get(facet);
    if (id === undefined) {
      id = this.facets.size + 1;
      this.facets.set(facet, id);
    }
    return id;
  }

  private ensureSlot(slot: number): void {
    if (slot < this.slotDoc.length) return;
    this.slotDoc = grow(this.slotDoc, slot);
    this.slotPart = grow(this.slotPart, slot);
    if (this.slotFacet.length > 0) this.slotFacet = grow(this.slotFacet, slot);
    this.slotLen = grow(this.slotLen, slot);
  }
}
