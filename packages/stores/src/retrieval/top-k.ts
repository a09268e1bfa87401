/**
 * The k best (slot, score, mask) entries offered (higher score first, ties: higher slot first),
 * kept in a bounded min-heap: O(log k) per offer however many documents match.
 */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private readonly masks: Int32Array;
  private size = 0;
  /**
   * What an offer must rank above to be kept: the worst entry kept once k are kept, before that
   * nothing (scores are positive). Callers test it inline and skip the call for most documents.
   */
  floorScore = -1;
  floorSlot = 0;

  constructor(private readonly k: number) {
    this.slots = new Int32Array(k);
    this.scores = new Float64Array(k);
    this.masks = new Int32Array(k);
  }

  /** Whether entry a ranks above entry b. */
  private above(sa: number, a: number, sb: number, b: number): boolean {
    return sa > sb || (sa === sb && a > b);
  }

  offer(slot: number, score: number, mask: number): void {
    const { slots, scores, masks } = this;
    let i: number;
    if (this.size < this.k) {
      // Sift up: the root is the worst entry kept.
      i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.above(scores[p], slots[p], score, slot)) break;
        slots[i] = slots[p];
        scores[i] = scores[p];
        masks[i] = masks[p];
        i = p;
      }
    } else {
      if (!this.above(score, slot, scores[0], slots[0])) return;
      i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.k) break;
        const r = l + 1;
        const m = r < this.k && this.above(scores[l], slots[l], scores[r], slots[r]) ? r : l;
        if (!this.above(score, slot, scores[m], slots[m])) break;
        slots[i] = slots[m];
        scores[i] = scores[m];
        masks[i] = masks[m];
        i = m;
      }
    }
    slots[i] = slot;
    scores[i] = score;
    masks[i] = mask;
    if (this.size === this.k) {
      this.floorScore = scores[0];
      this.floorSlot = slots[0];
    }
  }

  /** The entries kept, best first. */
  sorted(): { slot: number; score: number; mask: number }[] {
    const out: { slot: number; score: number; mask: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i], score: this.scores[i], mask: this.masks[i] });
    return out.sort((a, b) => (this.above(a.score, a.slot, b.score, b.slot) ? -1 : 1));
  }
}
