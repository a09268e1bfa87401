/** What the LoCoMo evaluation needs from a retrieval system: ingest turns, rank turns for a question. */
import type { LocomoConversation, LocomoTurn } from './locomo.js';

export interface Ranking {
  /** Distinct turn ids, best first. */
  turns: string[];
  /** Time of the retrieval call alone, in ms. */
  ms: number;
}

export interface Retriever {
  ingest(turn: LocomoTurn): Promise<void>;
  /** One retrieval call for up to k results. */
  rank(question: string, k: number): Promise<Ranking>;
  /** Observations worth a note on stderr (records shared by turns, hits that map to no turn). */
  notes(): string[];
  close(): Promise<void>;
}

export type RetrieverFactory = (conversation: LocomoConversation) => Promise<Retriever>;
