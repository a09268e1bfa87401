import { performance } from 'node:perf_hooks';
import { LoadSizes } from './load-sizes.js';
import { SourceIndex, type IndexColumns, type IndexedDoc } from './term-index.js';

/** What a build in slices reads of its source's table (index-sync.ts gives it). */
export interface BuildTable {
  /** Run `fn` in one read snapshot of the database (a deferred transaction). */
  snapshot<T>(fn: () => T): T;
  /** The change log's newest seq (in the snapshot it is called in). */
  maxSeq(): number;
  /** The table's rows with an id above `after`, in id order, as the index reads them. */
  rowsAfter(after: number): IterableIterator<IndexedDoc>;
}

/** Rows read between two looks at the clock. */
const ROWS_PER_CLOCK = 32;

/**
 * A build of one source's index from its table in slices, each slice a few milliseconds of reading
 * in a read snapshot of its own, so the event loop turns between them (RetrievalIndex.buildInSlices).
 * The two passes of SourceIndex.load are kept: the first measures every term's postings
 * (LoadSizes), reserve() allocates them, the second indexes the rows. Each pass reads the table
 * in id order, a slice taking the rows after the last id the previous one read.
 *
 * Writes may commit between slices. What the second pass indexed of a row is its version at the
 * seq of the slice that read it: the slices' id ranges cover every id once, (previous last id,
 * last id], the final one up to every id. So after the second pass, a row changed since needs
 * only its changes after its own slice's seq (seqOf): their first holds the old text of the
 * version indexed, exactly as for an index whose cursor is that seq (RetrievalIndex applies them
 * so). The first pass only sizes: rows that changed between the passes make lists grow or leave
 * room unused, and dropUnreserved() takes out what no row filled.
 */
export class IndexBuild {
  readonly index: SourceIndex;
  private sizes: LoadSizes | null;
  /** The last id the current pass read. */
  private after = 0;
  /** The second pass's slices: the last id each read (Infinity for the last slice), and the seq it read at. */
  private readonly ends: number[] = [];
  private readonly seqs: number[] = [];
  /** The log's seq at the first slice of the first pass. */
  private startSeq = -1;
  /** Both passes read to the end: the index holds every row, each at its slice's seq. */
  done = false;

  constructor(
    private readonly table: BuildTable,
    { weights, own }: IndexColumns,
    inlinePostings: number,
    maxResident: number,
  ) {
    this.index = new SourceIndex(weights, inlinePostings, maxResident, own);
    this.sizes = new LoadSizes(weights, own);
  }

  /** The seq of the second pass's first slice: every row was read at it or later. */
  get firstSeq(): number {
    return this.seqs[0];
  }

  /** The seq at which the second pass read the row of this id (or found no row of it). */
  seqOf(id: number): number {
    const ends = this.ends;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] >= id) hi = mid;
      else lo = mid + 1;
    }
    return this.seqs[lo];
  }

  /** Whether the log moved since the build began (by `seq`, read now): the passes may have read other rows. */
  movedSince(seq: number): boolean {
    return seq !== this.startSeq;
  }

  /**
   * Read one slice: rows after the last one read, for about `ms` milliseconds or until the table
   * ends (0: one batch of ROWS_PER_CLOCK rows). With an infinite `ms` the current pass is read to its end.
   */
  step(ms: number): void {
    if (this.done) return;
    const deadline = performance.now() + ms;
    const sizes = this.sizes;
    this.table.snapshot(() => {
      const seq = this.table.maxSeq();
      if (this.startSeq < 0) this.startSeq = seq;
      let last = this.after;
      let ended = true;
      let n = 0;
      for (const d of this.table.rowsAfter(this.after)) {
        if (sizes) sizes.measure(d.scope, d.columns);
        else this.index.add(d);
        last = d.id;
        if (++n % ROWS_PER_CLOCK === 0 && performance.now() >= deadline) {
          ended = false;
          break;
        }
      }
      if (sizes) {
        this.after = ended ? 0 : last;
        if (ended) {
          this.index.reserve(sizes);
          this.sizes = null;
        }
        return;
      }
      this.ends.push(ended ? Number.POSITIVE_INFINITY : last);
      this.seqs.push(seq);
      this.after = last;
      if (ended) this.done = true;
    });
  }

  /** Read what is left of both passes at once. */
  finish(): void {
    while (!this.done) this.step(Number.POSITIVE_INFINITY);
  }
}
