import { postingSize } from './postings.js';
import { postingTerms } from './doc-terms.js';

/** What a build's first pass learns of one term of one scope part (see LoadSizes). */
export interface TermSize {
  /** Postings. */
  n: number;
  /** Their encoded size in bytes. */
  bytes: number;
  /** Slot of the last posting. */
  last: number;
  /** Value of the last posting (doc-terms.ts postingValue). */
  q: number;
}

/**
 * The first pass of a build (SourceIndex.load, or a build in slices: index-build.ts): each term's
 * postings and their exact encoded size, per scope, for the documents in the order they will be
 * indexed (slot 1, 2, ...). SourceIndex.reserve() then allocates every list once at that size.
 * Only a sizing: should the second pass index other documents (a build in slices whose table
 * changed between its passes), lists grow or stay partly unused, and the answers are the same.
 */
export class LoadSizes {
  /** Per scope, per stem. */
  readonly parts = new Map<string, Map<string, TermSize>>();
  /** Documents measured (the slot of the last one). */
  docs = 0;

  constructor(
    private readonly weights: readonly number[],
    private readonly own: number,
  ) {}

  measure(scope: string, columns: readonly string[]): void {
    const slot = ++this.docs;
    let perPart = this.parts.get(scope);
    if (!perPart) this.parts.set(scope, (perPart = new Map()));
    for (const [stem, q] of postingTerms(this.weights, this.own, columns).tf) {
      let e = perPart.get(stem);
      if (!e) perPart.set(stem, (e = { n: 0, bytes: 0, last: 0, q: 0 }));
      e.q = q;
      e.bytes += postingSize(slot, e.last, e.q);
      e.last = slot;
      e.n++;
    }
  }
}
