import { normalize, splitSentences } from './text.js';

/** Input of {@link sessionQuality}: what memory_session_end knows about a session. */
export interface SessionQualityInput {
  summary: string;
  topics?: string[];
  state_deltas?: unknown[] | Record<string, unknown>;
  /** Number of records (episodes, facts, wiki pages, nodes) linked to the session. */
  linked_entries?: number;
  /** Number of user turns in the session. */
  user_turns?: number;
}

/** The stored score and its four components, each an integer 0..20. */
export interface SessionQuality {
  score: number;
  depth: number;
  decision: number;
  linked_entries: number;
  user_engagement: number;
}

/** Maximum of each component. */
export const SESSION_COMPONENT_MAX = 20;
/** Maximum total score (four components). */
export const SESSION_QUALITY_MAX = 80;

/**
 * Deterministic session quality score: an integer 0..80, the sum of four
 * integer components of 0..20 each.
 *
 *   depth            min(10, floor(summary chars / 40))      (400 chars saturate)
 *                  + min(5, summary sentences)
 *                  + min(5, distinct non-empty topics)
 *   decision         min(10, 5 x distinct decision words in the summary)
 *                    ("decided", "decision", "agreed", "chose", "will", "plan",
 *                    "resolved", "fixed", "next step", "action item", ...)
 *                  + min(10, 5 x number of state deltas)
 *                    (array length, or key count of an object)
 *   linked_entries   min(20, 2 x linked_entries)              (10 records saturate)
 *   user_engagement  min(20, 2 x user_turns)                  (10 turns saturate)
 *
 * The summary is trimmed first; an empty summary contributes nothing, so a session
 * with an empty summary and no other input scores 0. Negative, fractional or
 * non-finite counts are floored and treated as at least 0.
 */
export function sessionQuality(input: SessionQualityInput): SessionQuality {
  const summary = normalize(input.summary ?? '').trim();

  const topics = new Set((input.topics ?? []).map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0));
  const depth =
    Math.min(10, Math.floor(summary.length / 40)) +
    Math.min(5, summary.length > 0 ? splitSentences(summary).length : 0) +
    Math.min(5, topics.size);

  const lower = summary.toLowerCase();
  const decisionWords = DECISION_PATTERNS.filter((p) => p.test(lower)).length;
  const decision = Math.min(10, 5 * decisionWords) + Math.min(10, 5 * countDeltas(input.state_deltas));

  const linked = Math.min(SESSION_COMPONENT_MAX, 2 * count(input.linked_entries));
  const engagement = Math.min(SESSION_COMPONENT_MAX, 2 * count(input.user_turns));

  return {
    score: depth + decision + linked + engagement,
    depth,
    decision,
    linked_entries: linked,
    user_engagement: engagement,
  };
}

const DECISION_PATTERNS: readonly RegExp[] = [
  /\bdecided\b/,
  /\bdecisions?\b/,
  /\bagreed\b/,
  /\bch(?:o|oo)se\b|\bchosen\b/,
  /\bwill\b|\b(?:we|i)'ll\b/,
  /\bplan(?:ned)?\b/,
  /\bresolved\b/,
  /\bfixed\b/,
  /\bnext steps?\b/,
  /\baction items?\b/,
  /\bconcluded\b/,
];

function count(n: number | undefined): number {
  if (n === undefined || !Number.isFinite(n)) return 0;
  return Math.max(0, Math.floor(n));
}

function countDeltas(deltas: SessionQualityInput['state_deltas']): number {
  if (deltas === undefined || deltas === null) return 0;
  if (Array.isArray(deltas)) return deltas.length;
  if (typeof deltas === 'object') return Object.keys(deltas).length;
  return 0;
}
