/** The LoCoMo protocol over any retriever: ingest each conversation, ask its questions, score recall@K. */
import { performance } from 'node:perf_hooks';
import type { LocomoConversation } from './locomo.js';
import { note, Progress } from './progress.js';
import { RECALL_KS, scoreQuestion, summarizeByCategory, summarizeRecall, type QuestionScore, type RecallSummary } from './recall.js';
import type { RetrieverFactory } from './retriever.js';
import { percentile } from './stats.js';

export const EVAL_K = Math.max(...RECALL_KS);

export interface EvalSummary extends RecallSummary {
  per_category: Record<string, RecallSummary>;
  ingest_ms_per_turn: number;
  dream_p50_ms: number;
  dream_p95_ms: number;
}

export interface EvalOutcome {
  summary: EvalSummary;
  scores: QuestionScore[];
  turns: number;
  skippedQuestions: number;
}

/** Run the protocol on each conversation in turn; `limitQuestions` keeps the first questions of each. */
export async function evaluate(
  conversations: readonly LocomoConversation[],
  factory: RetrieverFactory,
  limitQuestions?: number,
): Promise<EvalOutcome> {
  const scores: QuestionScore[] = [];
  const latencies: number[] = [];
  let ingestMs = 0;
  let turns = 0;
  let skippedQuestions = 0;
  for (const conv of conversations) {
    const questions = limitQuestions === undefined ? conv.questions : conv.questions.slice(0, limitQuestions);
    skippedQuestions += conv.skippedQuestions;
    if (conv.skippedQuestions > 0 || conv.unknownEvidence.length > 0) {
      note(
        `${conv.name}: ${conv.skippedQuestions} questions skipped (no evidence naming a turn); evidence ids naming no turn: ${
          conv.unknownEvidence.length > 0 ? conv.unknownEvidence.join(', ') : 'none'
        }`,
      );
    }
    note(`${conv.name}: ingesting ${conv.turns.length} turns, then ${questions.length} questions`);
    const retriever = await factory(conv);
    try {
      const ingestProgress = new Progress(`${conv.name} ingest`, conv.turns.length);
      const start = performance.now();
      for (let i = 0; i < conv.turns.length; i++) {
        await retriever.ingest(conv.turns[i]);
        ingestProgress.tick(i + 1);
      }
      ingestMs += performance.now() - start;
      turns += conv.turns.length;
      const askProgress = new Progress(`${conv.name} questions`, questions.length);
      for (let i = 0; i < questions.length; i++) {
        const q = questions[i];
        const ranking = await retriever.rank(q.question, EVAL_K);
        latencies.push(ranking.ms);
        scores.push(scoreQuestion(q.category, ranking.turns, q.evidence));
        askProgress.tick(i + 1);
      }
      for (const line of retriever.notes()) note(`${conv.name}: ${line}`);
    } finally {
      await retriever.close();
    }
  }
  const summary: EvalSummary = {
    ...summarizeRecall(scores),
    per_category: summarizeByCategory(scores),
    ingest_ms_per_turn: turns > 0 ? ingestMs / turns : Number.NaN,
    dream_p50_ms: percentile(latencies, 50),
    dream_p95_ms: percentile(latencies, 95),
  };
  return { summary, scores, turns, skippedQuestions };
}
