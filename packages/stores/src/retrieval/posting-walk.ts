import type { PostingCursor } from './postings.js';
import type { TopK } from './top-k.js';

/** Weighted term frequencies are kept times this, rounded (column weights are tenths). */
export const WTF_SCALE = 10;

/**
 * In an index with context columns, a posting's value is its quantised frequency times 2, plus
 * this flag when the term counts as the document's own: an own column holds it, or a context
 * that asks something (doc-terms.ts postingTerms).
 */
export const OWN_FLAG = 1;

/** A cursor's slot once its postings are all read: above every real slot (slots are int32). */
const DONE = 0x7fffffff;

/**
 * The merge of one search over a scope part (SourceIndex.top): one cursor per query term, each
 * already on its first posting, walked in slot order; `nums[i]` is term i's idf * (k1 + 1) and
 * `bits[i]` its bit of the answer's mask. Each document's BM25 is offered to `heap` under its row
 * id (`slotDoc`) when it can be kept and `admits` its slot. `base` and `perLen` make a document's
 * length norm: base + perLen * slotLen[slot]. With `flagged` (an index with context columns), a
 * posting's value carries OWN_FLAG, and a term's bit is set only for a document it counts as the
 * own term of; a document left with mask 0 matched in a context that asks nothing alone, and its
 * score is multiplied by `contextOnly`.
 */
export function walkPostings(
  cursors: readonly PostingCursor[],
  nums: readonly number[],
  bits: readonly number[],
  slotLen: Float64Array,
  slotDoc: Int32Array,
  base: number,
  perLen: number,
  heap: TopK,
  admits: (slot: number) => boolean,
  flagged = false,
  contextOnly = 1,
): void {
  // Branch-free: the value's frequency is value >>> shift, and its own flag (value | always) & 1,
  // always 1 without context columns (every posting then sets its term's bit).
  const shift = flagged ? 1 : 0;
  const always = flagged ? 0 : OWN_FLAG;
  // A document is offered only when it can be kept (at or above the heap's floor, tested inline;
  // a tie with the heap's worst entry is decided in offer(), by row id): most are not, and a call
  // per posting was most of the walk's cost. Every path computes a term's weight as
  // idf * (k1 + 1) * wtf / (wtf + norm), norm = k1 * (1 - b) + k1 * b * len / avgdl, in that order
  // of operations, so a document scores the same to the last bit whichever path reads it.
  if (cursors.length === 1) {
    // One term: no merge, each posting is a document.
    const c = cursors[0];
    const num = nums[0];
    const bit = bits[0];
    do {
      const slot = c.slot;
      const wtf = (c.q >>> shift) / WTF_SCALE;
      let score = (num * wtf) / (wtf + (base + perLen * slotLen[slot]));
      const mask = bit & -((c.q | always) & OWN_FLAG);
      if (mask === 0) score *= contextOnly;
      if (score >= heap.floorScore && admits(slot)) heap.offer(slotDoc[slot], score, mask);
    } while (c.next());
  }
  if (cursors.length === 2) {
    // Two terms (the most common merge): a two-way merge without the general loop's scans. Each
    // score is computed exactly as the general loop computes it, term by term in query order.
    const [a, b] = cursors;
    const [na, nb] = nums;
    const [ba, bb] = bits;
    let aLive = true;
    let bLive = true;
    while (aLive || bLive) {
      let slot: number;
      let score: number;
      let mask: number;
      if (bLive && (!aLive || b.slot < a.slot)) {
        slot = b.slot;
        const wtf = (b.q >>> shift) / WTF_SCALE;
        score = (nb * wtf) / (wtf + (base + perLen * slotLen[slot]));
        mask = bb & -((b.q | always) & OWN_FLAG);
        bLive = b.next();
      } else if (!bLive || a.slot < b.slot) {
        slot = a.slot;
        const wtf = (a.q >>> shift) / WTF_SCALE;
        score = (na * wtf) / (wtf + (base + perLen * slotLen[slot]));
        mask = ba & -((a.q | always) & OWN_FLAG);
        aLive = a.next();
      } else {
        slot = a.slot;
        const norm = base + perLen * slotLen[slot];
        const wa = (a.q >>> shift) / WTF_SCALE;
        const wb = (b.q >>> shift) / WTF_SCALE;
        score = (na * wa) / (wa + norm);
        score += (nb * wb) / (wb + norm);
        mask = (ba & -((a.q | always) & OWN_FLAG)) | (bb & -((b.q | always) & OWN_FLAG));
        aLive = a.next();
        bLive = b.next();
      }
      if (mask === 0) score *= contextOnly;
      if (score >= heap.floorScore && admits(slot)) heap.offer(slotDoc[slot], score, mask);
    }
  }
  let live = cursors.length > 2 ? cursors.length : 0;
  while (live > 0) {
    let slot = DONE;
    for (let i = 0; i < cursors.length; i++) {
      const s = cursors[i].slot;
      if (s < slot) slot = s;
    }
    let score = 0;
    let mask = 0;
    const norm = base + perLen * slotLen[slot];
    for (let i = 0; i < cursors.length; i++) {
      const c = cursors[i];
      if (c.slot !== slot) continue;
      const wtf = (c.q >>> shift) / WTF_SCALE;
      score += (nums[i] * wtf) / (wtf + norm);
      mask |= bits[i] & -((c.q | always) & OWN_FLAG);
      if (!c.next()) {
        c.slot = DONE;
        live--;
      }
    }
    if (mask === 0) score *= contextOnly;
    if (score >= heap.floorScore && admits(slot)) heap.offer(slotDoc[slot], score, mask);
  }
}
