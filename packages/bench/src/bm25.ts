/** Plain BM25 over short documents: the retrieval baseline of the LoCoMo evaluation. */
import { ENGLISH_STOP_WORDS } from './stopwords.js';

export interface Bm25Options {
  k1: number;
  b: number;
  stopWords: ReadonlySet<string>;
}

export const DEFAULT_BM25: Bm25Options = { k1: 1.2, b: 0.75, stopWords: ENGLISH_STOP_WORDS };

/** Lower-cased alphanumeric tokens, stop words removed. */
export function tokenize(text: string, stopWords: ReadonlySet<string> = ENGLISH_STOP_WORDS): string[] {
  const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return tokens.filter((t) => !stopWords.has(t));
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/**
 * An in-memory BM25 index, idf = ln(1 + (N - df + 0.5) / (df + 0.5)). Documents are added one at a
 * time; statistics are those of the whole index at query time. Ties keep insertion order.
 */
export class Bm25Index {
  private readonly opts: Bm25Options;
  private readonly ids: string[] = [];
  private readonly lengths: number[] = [];
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private totalLength = 0;

  constructor(opts: Partial<Bm25Options> = {}) {
    this.opts = { ...DEFAULT_BM25, ...opts };
  }

  get size(): number {
    return this.ids.length;
  }

  add(id: string, text: string): void {
    const doc = this.ids.length;
    const tokens = tokenize(text, this.opts.stopWords);
    this.ids.push(id);
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [term, count] of tf) {
      let list = this.postings.get(term);
      if (!list) {
        list = [];
        this.postings.set(term, list);
      }
      list.push({ doc, tf: count });
    }
  }

  /** The best `limit` documents sharing at least one query term, best first. */
  search(query: string, limit: number): Bm25Hit[] {
    const n = this.ids.length;
    if (n === 0 || limit <= 0) return [];
    const { k1, b } = this.opts;
    const avgLength = this.totalLength / n || 1;
    const scores = new Map<number, number>();
    for (const term of tokenize(query, this.opts.stopWords)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + k1 * (1 - b + (b * this.lengths[doc]) / avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / norm);
      }
    }
    return [...scores.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, limit)
      .map(([doc, score]) => ({ id: this.ids[doc], score }));
  }
}
