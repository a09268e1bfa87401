/** The BM25 baseline as a retriever: one document per turn, in-process. */
import { performance } from 'node:perf_hooks';
import { Bm25Index } from './bm25.js';
import type { Retriever, RetrieverFactory } from './retriever.js';

export const bm25Retriever: RetrieverFactory = async () => {
  const index = new Bm25Index();
  const retriever: Retriever = {
    async ingest(turn) {
      index.add(turn.diaId, turn.text);
    },
    async rank(question, k) {
      const start = performance.now();
      const hits = index.search(question, k);
      const ms = performance.now() - start;
      const seen = new Set<string>();
      const turns: string[] = [];
      for (const h of hits) {
        if (seen.has(h.id)) continue;
        seen.add(h.id);
        turns.push(h.id);
      }
      return { turns, ms };
    },
    notes: () => [],
    async close() {},
  };
  return retriever;
};
