/** Mapping retrieved records back to conversation turns, and recall@K over the evidence turns. */
import { CATEGORY_NAMES } from './locomo.js';
import { mean } from './stats.js';

export const RECALL_KS = [5, 10, 20] as const;
export type RecallK = (typeof RECALL_KS)[number];

/** Stores whose records are not retrieval units and so are never used to map hits to turns. */
export const UNMAPPED_STORES: ReadonlySet<string> = new Set(['l1', 'timeline']);

export interface StoredRef {
  store: string;
  id: string;
}

export interface HitRef {
  source: string;
  id: string;
}

function key(store: string, id: string): string {
  return `${store}\u0000${id}`;
}

/**
 * Which turn made which stored record. When several turns report the same record (an updated
 * wiki page, a shared graph node), the record stays with the first turn that made it.
 */
export class TurnMap {
  private readonly byRecord = new Map<string, string>();
  /** Records reported again by a later turn. */
  shared = 0;

  record(turnId: string, actions: readonly StoredRef[]): void {
    for (const a of actions) {
      if (UNMAPPED_STORES.has(a.store)) continue;
      const k = key(a.store, String(a.id));
      const owner = this.byRecord.get(k);
      if (owner === undefined) this.byRecord.set(k, turnId);
      else if (owner !== turnId) this.shared++;
    }
  }

  turnOf(hit: HitRef): string | undefined {
    return this.byRecord.get(key(hit.source, String(hit.id)));
  }

  get size(): number {
    return this.byRecord.size;
  }
}

/** Ranked distinct turn ids for ranked hits: hits that map to no turn are dropped, repeats keep their first rank. */
export function rankTurns(hits: readonly HitRef[], map: Pick<TurnMap, 'turnOf'>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const h of hits) {
    const turn = map.turnOf(h);
    if (turn === undefined || seen.has(turn)) continue;
    seen.add(turn);
    out.push(turn);
  }
  return out;
}

/** Share of the distinct evidence turns found among the first k ranked turns. */
export function recallAt(rankedTurns: readonly string[], evidence: readonly string[], k: number): number {
  const wanted = new Set(evidence);
  if (wanted.size === 0) throw new RangeError('recall of a question without evidence');
  const top = new Set(rankedTurns.slice(0, k));
  let found = 0;
  for (const e of wanted) if (top.has(e)) found++;
  return found / wanted.size;
}

export interface QuestionScore {
  category: number;
  recall: Record<RecallK, number>;
}

/** The scores of one question for every K, from one ranking of turns. */
export function scoreQuestion(category: number, rankedTurns: readonly string[], evidence: readonly string[]): QuestionScore {
  const recall = {} as Record<RecallK, number>;
  for (const k of RECALL_KS) recall[k] = recallAt(rankedTurns, evidence, k);
  return { category, recall };
}

export interface RecallSummary {
  'recall@5': number;
  'recall@10': number;
  'recall@20': number;
  questions: number;
}

/** Mean recall@K over questions. */
export function summarizeRecall(scores: readonly QuestionScore[]): RecallSummary {
  return {
    'recall@5': mean(scores.map((s) => s.recall[5])),
    'recall@10': mean(scores.map((s) => s.recall[10])),
    'recall@20': mean(scores.map((s) => s.recall[20])),
    questions: scores.length,
  };
}

/** Mean recall@K per category (only categories that have questions), keyed by category number. */
export function summarizeByCategory(scores: readonly QuestionScore[]): Record<string, RecallSummary> {
  const out: Record<string, RecallSummary> = {};
  for (const c of Object.keys(CATEGORY_NAMES).map(Number)) {
    const inCat = scores.filter((s) => s.category === c);
    if (inCat.length > 0) out[String(c)] = summarizeRecall(inCat);
  }
  return out;
}
