import { PostingCursor, PostingList, postingSize, writePosting } from './postings.js';
import type { TermState } from './index-state.js';

/**
 * Small posting lists, kept without a PostingList of their own (term-index.ts): a PostingList is
 * an object and two typed arrays, about 470 bytes even for one 2-byte posting, which made a small
 * tenant cost 16-27 KB of heap. A term of one posting is a number in its part's map (ONE_POSTING);
 * a list of at most the index's inline limit lives in one byte buffer per part, written as a
 * PostingList writes its bytes, and moves to a PostingList once it grows past that limit.
 */

/**
 * A term holding one posting (one document, the commonest kind in a small scope) is kept in its
 * part's map as the number slot * ONE_POSTING + q, when q < ONE_POSTING: no object at all.
 * slot < 2^31, so the number stays below 2^52, exact in a double.
 */
export const ONE_POSTING = 2 ** 21;

/**
 * Postings a term keeps inline in its part's buffer before it gets a PostingList of its own (at
 * most SKIP_EVERY, so an inline list needs no skip entries).
 */
export const INLINE_POSTINGS = 16;

/** The skip entries of a list of 1..SKIP_EVERY postings, as state() shows an inline list's. */
export const INLINE_SKIPS = new Int32Array(2);

/** A part's inline buffer before its first inline posting. */
export const NO_BYTES = new Uint8Array(0);

/**
 * A term of a part: its document frequency and its postings, either a PostingList or, while it
 * holds at most the index's inline limit, `n` postings written as a PostingList writes them in
 * `len` bytes at `off` of the part's `inline` buffer, where `cap` bytes are set aside for it.
 */
export class Term {
  df = 0;
  list: PostingList | null = null;
  n = 0;
  len = 0;
  /** Slot of the last inline posting (0 before the first). */
  last = 0;
  off = 0;
  cap = 0;
}

/** What of a scope part the inline lists use: its terms and its inline buffer. */
export interface InlinePart {
  /** A term's postings: a Term, or a number when it holds one posting (ONE_POSTING). */
  terms: Map<string, Term | number>;
  /** The inline postings of the part's small terms, `used` bytes of it set aside, `garbage` of those no term's. */
  inline: Uint8Array;
  used: number;
  garbage: number;
}

/** Whether a term of n postings, the last of frequency q, is kept as a number (with inline lists on). */
export function isOne(n: number, q: number, inlinePostings: number): boolean {
  return n === 1 && inlinePostings > 0 && q < ONE_POSTING;
}

/** The number a saved term of one posting is kept as, or null when it is kept otherwise. */
export function asOne(bytes: Uint8Array, inlinePostings: number): number | null {
  const c = PostingCursor.inline(bytes, 0, 1, 0);
  c.next();
  return isOne(1, c.q, inlinePostings) ? onePostingOf(c.slot, c.q) : null;
}

/** The number a term of one posting (slot, q) is kept as. */
export function onePostingOf(slot: number, q: number): number {
  return slot * ONE_POSTING + q;
}

/** The slot of a term kept as a number. */
export function oneSlot(v: number): number {
  return Math.floor(v / ONE_POSTING);
}

/** The quantised frequency of a term kept as a number. */
export function oneQ(v: number): number {
  return v % ONE_POSTING;
}

/** A term of one posting (kept as the number `v`) as state() shows it. */
export function onePosting(stem: string, v: number): TermState {
  const slot = oneSlot(v);
  const q = oneQ(v);
  const bytes = new Uint8Array(postingSize(slot, 0, q));
  writePosting(bytes, 0, slot, 0, q);
  return { stem, df: 1, n: 1, len: bytes.length, last: slot, bytes, skips: INLINE_SKIPS };
}

/**
 * Append a posting to an inline term: in place when its room holds it, else moved to the end of
 * the part's buffer with room to grow; past the index's inline limit the term gets a PostingList.
 */
export function appendInline(part: InlinePart, t: Term, slot: number, q: number, inlinePostings: number): void {
  if (slot <= t.last) throw new Error(`postings must grow: slot ${slot} after ${t.last}`);
  const size = postingSize(slot, t.last, q);
  if (t.n >= inlinePostings) {
    const list = new PostingList(2 * (t.len + size), t.n + 1);
    list.bytes.set(part.inline.subarray(t.off, t.off + t.len));
    // An inline list's one skip entry is (0, 0), as the new list's first already is.
    list.n = t.n;
    list.len = t.len;
    list.last = t.last;
    list.append(slot, q);
    t.list = list;
    part.garbage += t.cap;
    t.n = t.len = t.last = t.off = t.cap = 0;
    return;
  }
  if (t.len + size > t.cap) {
    const need = t.len + size;
    const cap = need + Math.max(2, need >> 1);
    makeRoom(part, cap);
    part.inline.copyWithin(part.used, t.off, t.off + t.len);
    part.garbage += t.cap;
    t.off = part.used;
    t.cap = cap;
    part.used += cap;
  }
  t.len = writePosting(part.inline, t.off + t.len, slot, t.last, q) - t.off;
  t.last = slot;
  t.n++;
}

/**
 * Make `bytes` free at the end of a part's inline buffer: a larger buffer, into which the inline
 * terms are copied one after another (dropping the room of moved and removed ones) when that
 * room is over half the buffer, else as they lie.
 */
function makeRoom(part: InlinePart, bytes: number): void {
  if (part.used + bytes <= part.inline.length) return;
  if (part.garbage > part.used >> 1) {
    const keep = part.used - part.garbage;
    const next = new Uint8Array(keep + bytes + (keep >> 1) + 16);
    let at = 0;
    for (const t of part.terms.values()) {
      if (typeof t === 'number' || t.list !== null || t.cap === 0) continue;
      next.set(part.inline.subarray(t.off, t.off + t.len), at);
      t.off = at;
      at += t.cap;
    }
    part.inline = next;
    part.used = at;
    part.garbage = 0;
    if (part.used + bytes <= next.length) return;
  }
  const next = new Uint8Array(Math.max(part.used + bytes, Math.ceil(part.inline.length * 1.5) + 16));
  next.set(part.inline.subarray(0, part.used));
  part.inline = next;
}
