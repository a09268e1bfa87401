import { STOP_WORDS, wordTokens } from './query.js';
import { BM25_B, BM25_K1, SCORE_MAX_CHARS } from './score.js';
import { porterStem } from './stemmer.js';

/**
 * An in-memory inverted index of one retrieval source (episodes, facts, ...), partitioned by scope
 * (layer and user_id): each scope has its own terms, document frequencies and column lengths, so
 * one user's records never change another's ranking and a small scope is never crowded out by a
 * large one. No database code here: index-sync.ts keeps it in step with SQLite.
 *
 * Layout, chosen for memory (a few bytes a posting, no object per document):
 *  - every indexed version of a document gets a slot; per-slot typed arrays hold its row id, its
 *    scope part, its facet (wiki_type) and its weighted length;
 *  - a term's postings are one growable Uint32Array of `slot * 2^WTF_BITS + weighted tf * 10`,
 *    in slot order, which is the order documents were (re)indexed, newest last;
 *  - removing a document frees its slot (the part is set to 0) and takes its terms off the
 *    document frequencies; its postings stay until the whole index is rebuilt (see `dead`).
 */

/** Bits of a posting that carry the weighted term frequency (times WTF_SCALE, clamped). */
const WTF_BITS = 9;
const WTF_SHIFT = 2 ** WTF_BITS;
const WTF_MAX = WTF_SHIFT - 1;
const WTF_SCALE = 10;
/** Largest slot number a posting can carry; the owner rebuilds the index before it is reached. */
export const MAX_SLOT = 2 ** (32 - WTF_BITS) - 1;
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

interface Term {
  n: number;
  df: number;
  buf: Uint32Array;
}

interface Part {
  id: number;
  terms: Map<string, Term>;
  docs: number;
  colTotals: Float64Array;
}

/** Whether a lower-cased word can be a query term (mirrors queryTerms in query.ts). */
export function isQueryWord(w: string): boolean {
  return !STOP_WORDS.has(w) && w.length <= 64 && (w.length >= 2 || /\d/.test(w));
}

/** Per column: the token count and the stems of the words a query can match. */
export function columnTerms(text: string): { length: number; stems: string[] } {
  const words = wordTokens(text.length > SCORE_MAX_CHARS ? text.slice(0, SCORE_MAX_CHARS) : text);
  const stems: string[] = [];
  for (const w of words) if (isQueryWord(w)) stems.push(porterStem(w));
  return { length: words.length, stems };
}

const EMPTY = new Uint32Array(0);

function grow<T extends Int32Array | Float32Array | Uint32Array | Float64Array>(a: T, min: number): T {
  if (a.length > min) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(min + 1, Math.ceil(a.length * 1.5) + 16));
  next.set(a);
  return next;
}

export class SourceIndex {
  private slotDoc = new Int32Array(64);
  private slotPart = new Int32Array(64);
  private slotFacet = new Int32Array(64);
  private slotLen = new Float64Array(64);
  private acc = new Float64Array(64);
  private mask = new Int32Array(64);
  private touched = new Int32Array(64);
  private docSlot = new Int32Array(64);
  private readonly parts = new Map<string, Part>();
  private readonly partList: Part[] = [];
  private readonly facets = new Map<string, number>();
  private nextSlot = 1;
  /** Documents indexed now. */
  live = 0;
  /** Slots freed since the index was built: their postings are dead weight until a rebuild. */
  dead = 0;

  constructor(readonly weights: readonly number[]) {}

  /**
   * Index many documents at once (a build), in two passes over `docs()`: the first counts each
   * term's postings, the second fills buffers allocated once at their final size. Growing the
   * buffers step by step instead would copy each many times and leave the process's memory
   * fragmented by the freed copies, which at 100,000 memories cost more resident memory than the
   * index itself. `expected` sizes the per-slot arrays up front.
   */
  load(docs: () => Iterable<IndexedDoc>, expected = 0): void {
    this.ensureSlot(this.nextSlot + expected);
    const counts = new Map<string, Map<string, number>>();
    for (const d of docs()) {
      let perPart = counts.get(d.scope);
      if (!perPart) counts.set(d.scope, (perPart = new Map()));
      const seen = new Set<string>();
      for (let c = 0; c < this.weights.length; c++) for (const s of columnTerms(d.columns[c] ?? '').stems) seen.add(s);
      for (const s of seen) perPart.set(s, (perPart.get(s) ?? 0) + 1);
    }
    for (const [scope, perPart] of counts) {
      const part = this.part(scope);
      for (const [stem, n] of perPart) {
        const t = part.terms.get(stem);
        const buf = new Uint32Array((t?.n ?? 0) + n + Math.min(64, n >> 3));
        if (t) {
          buf.set(t.buf.subarray(0, t.n));
          t.buf = buf;
        } else part.terms.set(stem, { n: 0, df: 0, buf });
      }
    }
    for (const d of docs()) this.add(d);
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
    const part = this.part(doc.scope);
    const tf = new Map<string, number>();
    let len = 0;
    for (let c = 0; c < this.weights.length; c++) {
      const { length, stems } = columnTerms(doc.columns[c] ?? '');
      const w = this.weights[c];
      len += w * length;
      part.colTotals[c] += length;
      for (const s of stems) tf.set(s, (tf.get(s) ?? 0) + w);
    }
    for (const [stem, wtf] of tf) {
      let t = part.terms.get(stem);
      if (!t) {
        t = { n: 0, df: 0, buf: EMPTY };
        part.terms.set(stem, t);
      }
      if (t.n >= t.buf.length) t.buf = grow(t.buf, t.n);
      t.buf[t.n++] = slot * WTF_SHIFT + Math.max(1, Math.min(WTF_MAX, Math.round(wtf * WTF_SCALE)));
      t.df++;
    }
    part.docs++;
    this.slotDoc[slot] = doc.id;
    this.slotPart[slot] = part.id;
    this.slotFacet[slot] = doc.facet === null ? 0 : this.facetId(doc.facet);
    this.slotLen[slot] = len;
    if (doc.id >= this.docSlot.length) this.docSlot = grow(this.docSlot, doc.id);
    this.docSlot[doc.id] = slot;
    this.live++;
  }

  /**
   * Take a document out, given the column texts of the version that was indexed: its terms leave
   * the document frequencies. Returns false when the id is not indexed.
   */
  remove(id: number, columns: readonly string[]): boolean {
    if (!this.has(id)) return false;
    const slot = this.docSlot[id];
    const part = this.partList[this.slotPart[slot] - 1];
    const seen = new Set<string>();
    for (let c = 0; c < this.weights.length; c++) {
      const { length, stems } = columnTerms(columns[c] ?? '');
      part.colTotals[c] -= length;
      for (const s of stems) {
        if (seen.has(s)) continue;
        seen.add(s);
        const t = part.terms.get(s);
        if (t) t.df--;
      }
    }
    part.docs--;
    this.slotPart[slot] = 0;
    this.docSlot[id] = 0;
    this.live--;
    this.dead++;
    return true;
  }

  stats(scope: string): PartStats {
    const part = this.parts.get(scope);
    const docs = part?.docs ?? 0;
    return { docs, avgLen: this.weights.map((_, c) => (part && docs > 0 ? part.colTotals[c] / docs : 0)) };
  }

  /** Documents of the scope holding the stem. */
  df(scope: string, stem: string): number {
    return this.parts.get(scope)?.terms.get(stem)?.df ?? 0;
  }

  /**
   * The scope's best `pool` documents for the terms: BM25 over weighted columns (the formula of
   * score.ts without the proximity bonus), reading at most WALK_BUDGET postings, each term from its
   * newest end. Ties go to the newer version. `avgdl` is the weighted mean length the scores are
   * normalised against; `skip` holds row ids to leave out. Each answer's `mask` has bit i set when
   * the document holds terms[i] (bits past 30: see hasTerm in score.ts).
   */
  top(scope: string, terms: readonly ScoredTerm[], pool: number, avgdl: number, facet?: string | null, skip?: ReadonlySet<number>): IndexHit[] {
    const part = this.parts.get(scope);
    if (!part || pool <= 0 || terms.length === 0) return [];
    const facetId = facet === undefined || facet === null ? 0 : (this.facets.get(facet) ?? -1);
    if (facetId < 0) return [];
    const skipping = skip !== undefined && skip.size > 0;
    // BM25 term weight: idf * wtf * (k1 + 1) / (wtf + k1 * (1 - b) + k1 * b * len / avgdl).
    const base = BM25_K1 * (1 - BM25_B);
    const perLen = (BM25_K1 * BM25_B) / (avgdl > 0 ? avgdl : 1);
    const perTerm = Math.max(1, Math.floor(WALK_BUDGET / terms.length));
    const { acc, mask, slotPart, slotFacet, slotLen, slotDoc } = this;
    const pid = part.id;
    let touched = this.touched;
    let nTouched = 0;
    for (let ti = 0; ti < terms.length; ti++) {
      const qt = terms[ti];
      const t = part.terms.get(qt.stem);
      if (!t || qt.idf <= 0) continue;
      const bit = ti < 31 ? 1 << ti : 0;
      const num = qt.idf * (BM25_K1 + 1);
      const buf = t.buf;
      const stop = Math.max(0, t.n - perTerm);
      if (touched.length < nTouched + (t.n - stop)) touched = this.touched = grow(touched, nTouched + (t.n - stop));
      for (let i = t.n - 1; i >= stop; i--) {
        const v = buf[i];
        const slot = v >>> WTF_BITS;
        if (slotPart[slot] !== pid) continue;
        if (facetId !== 0 && slotFacet[slot] !== facetId) continue;
        if (skipping && skip.has(slotDoc[slot])) continue;
        const wtf = (v & WTF_MAX) / WTF_SCALE;
        if (acc[slot] === 0) touched[nTouched++] = slot;
        acc[slot] += (num * wtf) / (wtf + base + perLen * slotLen[slot]);
        mask[slot] |= bit;
      }
    }
    const best = selectTop(touched, nTouched, acc, pool).map((slot) => ({ id: slotDoc[slot], score: acc[slot], mask: mask[slot] }));
    for (let j = 0; j < nTouched; j++) {
      acc[touched[j]] = 0;
      mask[touched[j]] = 0;
    }
    return best;
  }

  private part(scope: string): Part {
    let part = this.parts.get(scope);
    if (!part) {
      part = { id: this.partList.length + 1, terms: new Map(), docs: 0, colTotals: new Float64Array(this.weights.length) };
      this.parts.set(scope, part);
      this.partList.push(part);
    }
    return part;
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
    this.slotFacet = grow(this.slotFacet, slot);
    this.slotLen = grow(this.slotLen, slot);
    this.acc = grow(this.acc, slot);
    this.mask = grow(this.mask, slot);
  }
}

/**
 * The `k` touched slots with the highest accumulated score (ties: higher slot first), best first;
 * a bounded min-heap, so the cost is O(n log k) however many slots were touched.
 */
function selectTop(touched: Int32Array, n: number, acc: Float64Array, k: number): number[] {
  const better = (a: number, b: number) => acc[a] > acc[b] || (acc[a] === acc[b] && a > b);
  if (n <= k) return Array.from(touched.subarray(0, n)).sort((a, b) => (better(a, b) ? -1 : 1));
  // heap[0] is the worst of the best k so far.
  const heap = new Int32Array(k);
  let size = 0;
  for (let j = 0; j < n; j++) {
    const slot = touched[j];
    let i: number;
    if (size < k) {
      i = size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!better(heap[p], slot)) break;
        heap[i] = heap[p];
        i = p;
      }
      heap[i] = slot;
      continue;
    }
    if (!better(slot, heap[0])) continue;
    i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= k) break;
      const r = l + 1;
      const m = r < k && better(heap[l], heap[r]) ? r : l;
      if (!better(slot, heap[m])) break;
      heap[i] = heap[m];
      i = m;
    }
    heap[i] = slot;
  }
  return Array.from(heap).sort((a, b) => (better(a, b) ? -1 : 1));
}
