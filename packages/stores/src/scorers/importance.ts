import { anyOf, clamp01, isAscii, namedEntities, normalize, round3, wordsOf } from './text.js';

/**
 * Importance heuristic used by `think` routing and by the `new_message` /
 * `auto_save_candidate` hooks. Deterministic: a pure function of the text.
 *
 * Formula (result clamped to [0, 1], rounded to 3 decimals):
 *
 *   empty text                       -> 0
 *   only filler words ("ok thanks")  -> 0.05 (FILLER_IMPORTANCE)
 *   otherwise
 *     0.20  base
 *   + 0.30  first memory marker ("remember", "always", "never", "important", "must",
 *           "note that", "don't forget", "keep in mind", "make sure", "my name is",
 *           "I prefer", "prefers", "I like/love/hate", "favorite", "deadline", "birthday", ...)
 *   + 0.10  each further distinct marker, markers capped at 0.40 in total
 *   + 0.25  decision ("decided", "we will", "we'll", "chose", "agreed", "going with", ...)
 *   + 0.20  personal fact ("my <noun> is/are", "I am a", "I live/work/was born ...");
 *           secret nouns (password, PIN, API key, token, secret) never count
 *   + 0.10  a date or number (digits, weekday, month, "today", "tomorrow", ...)
 *   + 0.05  per named entity (capitalised word not at sentence start), at most 0.10
 *   + 0.05  8 or more words, or + 0.10 for 20 or more words
 *   - 0.15  the text contains a question mark
 *
 * Secrets never raise importance: "password", "api key" and the like are not
 * markers, and "my password is ..." is not a personal fact.
 *
 * Threshold examples (see thresholds.ts):
 *   "Remember: my name is Alice"                     0.85 -> > 0.7, short: L4 fact
 *   "I always deploy on Fridays after the review"    0.65 -> >= 0.5: auto-saved to L3
 *   "ok thanks"                                      0.05 -> below every threshold
 */
export function scoreImportance(text: string): number {
  const lower = normalize(text).toLowerCase();
  const words = wordsOf(lower);
  if (words.length === 0) return 0;
  if (words.every((w) => FILLER_WORDS.has(w))) return FILLER_IMPORTANCE;

  let score = BASE_IMPORTANCE;

  // Most texts carry no marker: one pass over the text says so before the markers are counted.
  const markers = ANY_MARKER.test(lower) ? MEMORY_MARKERS.filter((p) => p.test(lower)).length : 0;
  if (markers > 0) score += Math.min(MARKER_CAP, FIRST_MARKER + (markers - 1) * EXTRA_MARKER);

  if (ANY_DECISION.test(lower)) score += DECISION_BONUS;
  if (hasPersonalFact(lower)) score += PERSONAL_FACT_BONUS;
  if (hasDateOrNumber(text, lower)) score += DATE_NUMBER_BONUS;

  score += Math.min(ENTITY_CAP, namedEntities(text).length * ENTITY_BONUS);

  if (words.length >= LONG_WORDS) score += LONG_BONUS;
  else if (words.length >= MEDIUM_WORDS) score += MEDIUM_BONUS;

  if (text.includes('?')) score -= QUESTION_PENALTY;

  return round3(clamp01(score));
}

/** Importance given to a text made only of filler words. */
export const FILLER_IMPORTANCE = 0.05;

const BASE_IMPORTANCE = 0.2;
const FIRST_MARKER = 0.3;
const EXTRA_MARKER = 0.1;
const MARKER_CAP = 0.4;
const DECISION_BONUS = 0.25;
const PERSONAL_FACT_BONUS = 0.2;
const DATE_NUMBER_BONUS = 0.1;
const ENTITY_BONUS = 0.05;
const ENTITY_CAP = 0.1;
const MEDIUM_WORDS = 8;
const MEDIUM_BONUS = 0.05;
const LONG_WORDS = 20;
const LONG_BONUS = 0.1;
const QUESTION_PENALTY = 0.15;

/** Words that on their own carry nothing worth remembering. */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'ok', 'okay', 'k', 'kk', 'thanks', 'thank', 'you', 'thx', 'ty', 'lol', 'lmao', 'haha',
  'hi', 'hey', 'hello', 'yes', 'yeah', 'yep', 'yup', 'no', 'nope', 'sure', 'cool', 'nice',
  'great', 'fine', 'alright', 'right', 'hmm', 'hm', 'um', 'uh', 'got', 'it', 'np', 'bye',
  'cheers', 'good', 'wow', 'oh', 'ah', 'so', 'much', 'very',
]);

/** Explicit memory markers; each distinct pattern counts once. */
const MEMORY_MARKERS: readonly RegExp[] = [
  /\bremember\b/,
  /\balways\b/,
  /\bnever\b/,
  /\bimportant\b/,
  /\bmust\b/,
  /\bnote that\b/,
  /\b(?:don't|do not) forget\b/,
  /\bkeep in mind\b/,
  /\bmake sure\b/,
  /\bmy name is\b/,
  /\bcall me\b/,
  /\bi (?:really )?prefer\b|\bprefers\b/,
  /\bi (?:really )?(?:like|love|hate|dislike)\b/,
  /\bfavou?rite\b/,
  /\bdeadline\b/,
  /\bbirthday\b/,
  /\banniversary\b/,
  /\ballerg(?:y|ic|ies)\b/,
];

/** Decision language. */
const DECISION_PATTERNS: readonly RegExp[] = [
  /\bdecided\b/,
  /\bdecision\b/,
  /\bwe will\b/,
  /\bwe'll\b/,
  /\bchose\b/,
  /\bchosen\b/,
  /\bagreed\b/,
  /\bgoing with\b/,
  /\bsettled on\b/,
];

/** Nouns whose values are secrets; they must never make a text look important. */
const SECRET_NOUNS = /\b(?:password|passphrase|passcode|pin|api key|key|token|secret|credentials?|ssn)\b/;

/** "my <up to three words> is/are/was/were", and its twin for ASCII text (see text.ts). */
export const MY_NOUN_IS: readonly [RegExp, RegExp] = [
  /\bmy ((?:[\p{L}'-]+ ){0,2}?[\p{L}'-]+) (?:is|are|was|were)\b/u,
  /\bmy ((?:[A-Za-z'-]+ ){0,2}?[A-Za-z'-]+) (?:is|are|was|were)\b/,
];
const FIRST_PERSON_FACTS: readonly RegExp[] = [
  /\bi(?:'m| am) (?:a|an)\b/,
  /\bi (?:live|work|grew up|was born|studied)\b/,
  /\bi(?:'m| am) from\b/,
];

function hasPersonalFact(lower: string): boolean {
  const m = MY_NOUN_IS[isAscii(lower) ? 1 : 0].exec(lower);
  if (m && !SECRET_NOUNS.test(m[1])) return true;
  return ANY_FIRST_PERSON_FACT.test(lower);
}

const RELATIVE_DAYS = /\b(?:today|tomorrow|yesterday|tonight|next (?:week|month|year)|last (?:week|month|year))\b/;
const WEEKDAYS = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b/;
/** Month names count only when capitalised, so the verbs "may" and "march" do not. */
const MONTHS = /\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b/;

/** Each `some` above as one pattern (one pass over the text instead of one per pattern). */
const ANY_MARKER = anyOf(MEMORY_MARKERS);
const ANY_DECISION = anyOf(DECISION_PATTERNS);
const ANY_FIRST_PERSON_FACT = anyOf(FIRST_PERSON_FACTS);
const ANY_DATE_IN_LOWER = anyOf([/\d/, RELATIVE_DAYS, WEEKDAYS]);

function hasDateOrNumber(text: string, lower: string): boolean {
  return ANY_DATE_IN_LOWER.test(lower) || MONTHS.test(text);
}
