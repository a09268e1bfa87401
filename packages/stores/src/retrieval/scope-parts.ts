import { PostingList } from './postings.js';
import { INLINE_SKIPS, NO_BYTES, Term, asOne, onePosting, type InlinePart } from './small-postings.js';
import type { PartState, TermState } from './index-state.js';

/**
 * The scope parts of a SourceIndex (term-index.ts) and their residency: which parts hold their
 * postings in memory (at most maxResident, the least recently used evicted past it), a part read
 * from a saved index decoded at its first use, and a part's contents as a snapshot shows them.
 * SourceIndex indexes into and scores the parts it gets here; nothing here reads a posting.
 */

/** The terms of every evicted part: never written (add and remove skip an evicted part's terms). */
const EVICTED: Map<string, Term | number> = new Map();

/** One scope's part of a SourceIndex: its terms and postings, documents and column totals. */
export interface Part extends InlinePart {
  id: number;
  scope: string;
  docs: number;
  colTotals: Float64Array;
  /** False once evicted, or while `saved`: no terms, column totals or inline buffer until then. */
  resident: boolean;
  /**
   * A part read from a saved index and not decoded yet (see restore): its terms and totals,
   * decoded at its first use, read or write (materialise()). Null otherwise.
   */
  saved: PartState | null;
}

export class ScopeParts {
  private readonly byScope = new Map<string, Part>();
  /**
   * Parts by id - 1; null where a part was emptied (see empty()): part ids are the slots' and cannot
   * be renumbered without a rebuild, but its record goes, and a saved index leaves it out.
   */
  readonly list: (Part | null)[] = [];
  /** The resident parts, least recently used first (add, use and reload move a part to the end). */
  private readonly lru = new Map<Part, true>();
  /** The last part of `lru` (the most recently used), null when none. */
  private newest: Part | null = null;
  /**
   * The column totals of every part without postings (evicted, not decoded yet, or empty): all
   * zero, never written. A part gets its own at its first posting (SourceIndex.post) or decode, so
   * 10,000 scopes read from a file do not cost 10,000 typed arrays.
   */
  readonly noTotals: Float64Array;

  /** `columns`: the index's column count; `inlinePostings` and `maxResident` as SourceIndex's. */
  constructor(
    columns: number,
    private readonly inlinePostings: number,
    private readonly maxResident: number,
  ) {
    this.noTotals = new Float64Array(columns);
  }

  /** A scope's part, whatever its residency; undefined when the index has nothing of the scope. */
  get(scope: string): Part | undefined {
    return this.byScope.get(scope);
  }

  /** A scope's part, made when missing: resident and empty, or else evicted (restore). */
  part(scope: string, resident = true): Part {
    let part = this.byScope.get(scope);
    if (!part) {
      part = {
        id: this.list.length + 1,
        scope,
        terms: resident ? new Map() : EVICTED,
        docs: 0,
        colTotals: this.noTotals,
        inline: NO_BYTES,
        used: 0,
        garbage: 0,
        resident,
        saved: null,
      };
      this.byScope.set(scope, part);
      this.list.push(part);
    }
    return part;
  }

  /**
   * A scope's part, which must not be evicted (the caller reloads it first: see use()); one read
   * from a saved index and not decoded yet is decoded now.
   */
  resident(scope: string): Part | undefined {
    const part = this.byScope.get(scope);
    if (part !== undefined && !part.resident && !this.materialise(part)) throw new Error(`the index part of scope ${scope} is evicted: reload() it before reading it`);
    return part;
  }

  /** SourceIndex.use: mark a scope used; false when its part is evicted. */
  use(scope: string): boolean {
    const part = this.byScope.get(scope);
    if (!part) return true;
    if (part.resident) this.touch(part);
    else this.materialise(part);
    return part.resident;
  }

  /** Scope parts resident now with documents (with their postings): at most maxResident. */
  get residentParts(): number {
    return this.lru.size;
  }

  /** Scope parts read from a saved index and not decoded yet: at most maxResident. */
  get savedParts(): number {
    let n = 0;
    for (const p of this.list) if (p !== null && p.saved !== null) n++;
    return n;
  }

  /** Make a resident part the most recently used, and evict the least recently used past the bound. */
  touch(part: Part): void {
    // The common case, a scope searched or written again, moves nothing. A part without documents
    // has nothing to keep, and does not count towards the bound (see empty()).
    if (this.newest === part || part.docs === 0) return;
    this.newest = part;
    this.lru.delete(part);
    this.lru.set(part, true);
    this.trim();
  }

  /** Evict the least recently used parts while more than maxResident are resident. */
  private trim(): void {
    while (this.lru.size > this.maxResident) {
      const oldest = this.lru.keys().next().value as Part;
      this.evict(oldest);
    }
  }

  /**
   * Drop a part's postings, column totals and inline buffer: its documents keep their slots, and
   * add() and remove() keep counting them, so reload() can make its postings again at the same
   * slots from the scope's rows.
   */
  private evict(part: Part): void {
    this.release(part, false);
  }

  /** Drop a part's postings, inline buffer and totals and take it off the LRU list: evicted, or resident and empty. */
  private release(part: Part, resident: boolean): void {
    part.resident = resident;
    part.saved = null;
    part.terms = resident ? new Map() : EVICTED;
    part.inline = NO_BYTES;
    part.used = 0;
    part.garbage = 0;
    part.colTotals = this.noTotals;
    this.lru.delete(part);
    if (this.newest === part) this.newest = null;
  }

  /**
   * A part its last document left: it drops its inline buffer (dead postings only) and totals and
   * leaves the resident parts, so it counts neither towards the bound nor in memory, and its record
   * goes too (its id stays taken: the slots' part ids cannot be renumbered without a rebuild; a
   * saved index numbers its parts anew, see snapshot()). A search of the scope then finds no part,
   * as for a scope never written, and a new document starts a new part.
   */
  empty(part: Part): void {
    this.release(part, true);
    this.byScope.delete(part.scope);
    this.list[part.id - 1] = null;
  }

  /**
   * An evicted part about to get its postings again from its scope's rows (SourceIndex.reload):
   * resident, with no terms yet. The caller posts its documents, then touches it.
   */
  reinstate(part: Part): void {
    part.resident = true;
    part.terms = new Map();
  }

  /**
   * Decode a part read from a saved index that was not decoded yet (see restore): it becomes
   * resident and the most recently used. Returns whether the part is resident now.
   */
  materialise(part: Part): boolean {
    const saved = part.saved;
    if (saved === null || !saved.saved) return part.resident;
    part.saved = null;
    this.decode(part, saved.colTotals, saved.saved());
    this.touch(part);
    return true;
  }

  /** Give a part the postings and totals of a state's terms (copied). */
  private decode(part: Part, colTotals: Float64Array, terms: readonly TermState[]): void {
    const inlinePostings = this.inlinePostings;
    part.resident = true;
    part.terms = new Map();
    part.used = 0;
    part.garbage = 0;
    part.colTotals = new Float64Array(colTotals);
    let inline = 0;
    const ones: (number | null)[] = terms.map((t) => (t.n === 1 && t.df === 1 ? asOne(t.bytes, inlinePostings) : null));
    terms.forEach((t, i) => {
      if (t.n <= inlinePostings && ones[i] === null) inline += t.len;
    });
    part.inline = inline > 0 ? new Uint8Array(inline) : NO_BYTES;
    for (const [i, t] of terms.entries()) {
      const one = ones[i];
      if (one !== null) {
        part.terms.set(t.stem, one);
        continue;
      }
      const term = new Term();
      term.df = t.df;
      if (t.n > inlinePostings) term.list = PostingList.restore(t.n, t.len, t.last, t.bytes.slice(), t.skips.slice());
      else {
        // A list of 1..SKIP_EVERY postings has the one skip entry (0, 0): its bytes say it all.
        part.inline.set(t.bytes, part.used);
        term.n = t.n;
        term.len = t.len;
        term.last = t.last;
        term.off = part.used;
        term.cap = t.len;
        part.used += t.len;
      }
      part.terms.set(t.stem, term);
    }
  }

  /**
   * The parts of a state taken earlier (SourceIndex.fromState), into an index without parts. A
   * part whose terms are `saved` (read from a file: decodeSnapshot) is not decoded here but at its
   * first use, and does not count as resident until then; of those, at most `maxResident` are kept
   * (the most recently used), the others are evicted. A part without documents (an older save)
   * gets no record, only its id.
   */
  restore(states: readonly PartState[]): void {
    const saved: Part[] = [];
    for (const p of states) {
      // A part without documents (saved by an earlier version) keeps its id, but no record.
      if (p.docs === 0) {
        this.list.push(null);
        continue;
      }
      // Made evicted: no dictionary is made for a part that will not be decoded now.
      const part = this.part(p.scope, false);
      part.docs = p.docs;
      if (!p.resident) continue;
      if (p.saved) {
        part.saved = p;
        saved.push(part);
        continue;
      }
      this.decode(part, p.colTotals, p.terms);
      // In the file's order, so past maxResident the parts made first are evicted.
      this.touch(part);
    }
    if (saved.length > this.maxResident) {
      const byUse = saved.map((part, i) => ({ part, i })).sort((a, b) => (a.part.saved as PartState).recency - (b.part.saved as PartState).recency || a.i - b.i);
      for (const { part } of byUse.slice(0, saved.length - this.maxResident)) part.saved = null;
    }
  }

  /**
   * The parts with documents as a state shows them (views of their arrays, valid until the index
   * next changes), numbered anew when emptied ones left holes: `renumber` maps an old part id to
   * its new one then, and is null when no part was emptied. A part's `recency` ranks the resident
   * parts and those not decoded yet by use: the latter first, in the order they were saved, then
   * the least recently used resident part up to the most recent.
   */
  snapshot(): { renumber: Int32Array | null; parts: PartState[] } {
    // The parts with documents, numbered anew when emptied ones left holes (their slots are all dead).
    const list: Part[] = [];
    const renumber = new Int32Array(this.list.length + 1);
    for (const p of this.list) {
      if (p === null) continue;
      list.push(p);
      renumber[p.id] = list.length;
    }
    const recency = new Map<Part, number>();
    const waiting = list.filter((p) => p.saved !== null).sort((a, b) => (a.saved as PartState).recency - (b.saved as PartState).recency);
    for (const p of waiting) recency.set(p, recency.size + 1);
    for (const p of this.lru.keys()) recency.set(p, recency.size + 1);
    return {
      renumber: list.length < this.list.length ? renumber : null,
      parts: list.map((p): PartState => {
        const rank = recency.get(p) ?? 0;
        // A part not decoded yet is saved again as it was read.
        if (p.saved !== null) return { ...p.saved, recency: rank };
        return {
          scope: p.scope,
          docs: p.docs,
          resident: p.resident,
          recency: rank,
          colTotals: p.colTotals,
          terms: [...p.terms].map(([stem, t]) =>
            typeof t === 'number'
              ? onePosting(stem, t)
              : t.list === null
              ? { stem, df: t.df, n: t.n, len: t.len, last: t.last, bytes: p.inline.subarray(t.off, t.off + t.len), skips: INLINE_SKIPS }
              : {
                  stem,
                  df: t.df,
                  n: t.list.n,
                  len: t.list.len,
                  last: t.list.last,
                  bytes: t.list.bytes.subarray(0, t.list.len),
                  skips: t.list.skips.subarray(0, t.list.skipsUsed),
                },
          ),
        };
      }),
    };
  }
}
