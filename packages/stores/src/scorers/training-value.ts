import { anyOf, normalize } from './text.js';

/** Training value recorded in the metadata of a `thought` timeline event. */
export type TrainingValue = 'high' | 'medium' | 'low';

/** Importance at or above this makes a thought `high`. */
export const TRAINING_HIGH_IMPORTANCE = 0.7;
/** Importance strictly below this (with a short text) makes a thought `low`. */
export const TRAINING_LOW_IMPORTANCE = 0.4;
/** A text strictly shorter than this (characters, trimmed) counts as short. */
export const TRAINING_SHORT_CHARS = 120;

/**
 * Classifies a thought for the `training_value` field of its timeline event:
 *
 *   high    importance >= 0.7, or the text carries a decision, a lesson or a
 *           correction ("decided", "decision", "chose", "we will", "lesson",
 *           "learned", "mistake", "correction", "I was wrong", "turns out",
 *           "should have", "root cause", "next time", "note to self")
 *   low     otherwise, when importance < 0.4 and the trimmed text is shorter
 *           than 120 characters
 *   medium  everything else
 *
 * A non-finite importance is treated as 0.
 */
export function trainingValue(text: string, importance: number): TrainingValue {
  const imp = Number.isFinite(importance) ? importance : 0;
  const lower = normalize(text).toLowerCase();
  if (imp >= TRAINING_HIGH_IMPORTANCE || ANY_LESSON.test(lower)) return 'high';
  if (imp < TRAINING_LOW_IMPORTANCE && text.trim().length < TRAINING_SHORT_CHARS) return 'low';
  return 'medium';
}

const LESSON_PATTERNS: readonly RegExp[] = [
  /\bdecided\b/,
  /\bdecision\b/,
  /\bchose\b/,
  /\bwe will\b/,
  /\bwe'll\b/,
  /\blessons?\b/,
  /\blearn(?:ed|t)\b/,
  /\bmistakes?\b/,
  /\bcorrect(?:ion|ed)\b/,
  /\b(?:i was|we were|was) wrong\b/,
  /\bturns out\b/,
  /\bshould have\b/,
  /\broot cause\b/,
  /\bnext time\b/,
  /\bnote to self\b/,
];

/** The lesson patterns as one (one pass over the text). */
const ANY_LESSON = anyOf(LESSON_PATTERNS);
