import { ranksAbove } from './rank.js';

/**
 * The k best (row, score, mask) entries offered, in the order of rankOrder (higher score first,
 * ties: the newer row first), kept in a bounded min-heap: O(log k) per offer however many
 * documents match.
 */
export class TopK {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  private readonly masks: Int32Array;
  private size = 0;
  /**
   * The score of the worst entry kept once k are kept, before that -1 (scores are positive): an
   * offer below it is not kept. Callers test it inline and skip the call for most documents; an
   * offer level with it is decided by offer().
   */
  floorScore = -1;

  constructor(private readonly k: number) {
    this.rows = new Int32Array(k);
    this.scores = new Float64Array(k);
    this.masks = new Int32Array(k);
  }

  offer(row: number, score: number, mask: number): void {
    const { rows, scores, masks } = this;
    let i: number;
    if (this.size < this.k) {
      // Sift up: the root is the worst entry kept.
      i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!ranksAbove(scores[p], rows[p], score, row)) break;
        rows[i] = rows[p];
        scores[i] = scores[p];
        masks[i] = masks[p];
        i = p;
      }
    } else {
      if (!ranksAbove(score, row, scores[0], rows[0])) return;
      i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= this.k) break;
        const r = l + 1;
        const m = r < this.k && ranksAbove(scores[l], rows[l], scores[r], rows[r]) ? r : l;
        if (!ranksAbove(score, row, scores[m], rows[m])) break;
        rows[i] = rows[m];
        scores[i] = scores[m];
        masks[i] = masks[m];
        i = m;
      }
    }
    rows[i] = row;
    scores[i] = score;
    masks[i] = mask;
    if (this.size === this.k) this.floorScore = scores[0];
  }

  /** The entries kept, best first. */
  sorted(): { row: number; score: number; mask: number }[] {
    const out: { row: number; score: number; mask: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ row: this.rows[i], score: this.scores[i], mask: this.masks[i] });
    return out.sort((a, b) => (ranksAbove(a.score, a.row, b.score, b.row) ? -1 : 1));
  }
}
