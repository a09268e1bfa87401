import { clamp01, isAllCaps, normalize, round3, wordsOf } from './text.js';

/**
 * Lexicon-based emotional weight of a text, in [0, 1]. A weight strictly above
 * 0.5 (EMOTIONAL_L3) routes a thought to an L3 episode.
 *
 * Formula (clamped to [0, 1], rounded to 3 decimals):
 *
 *   hit weight   1.0 for a lexicon word (joy, love, gratitude, anger, fear, sadness,
 *                frustration, shame), 0.5 for a mild one ("thanks", "nice", "upset"...)
 *                x 1.5 when one of the two previous words is an intensifier
 *                ("so", "very", "really", "extremely", "totally", ...)
 *                x 1.5 when the emotion word itself is written in capitals ("HATE")
 *                x 0.5 when one of the three previous words is a negation
 *                ("not", "never", "no", "don't", "isn't"...): light negation, since
 *                "not happy" is still emotional but weaker
 *   lexical      = min(0.8, 0.3 x sum of hit weights)
 *   exclamation  = + 0.1 per "!", at most 0.2
 *   shouting     = + 0.1 when at least 3 words of 2+ letters are in capitals and
 *                  they make up at least half of the words
 *
 * Examples: "I'm so happy and grateful, this is amazing!" -> 0.9;
 * "The build uses make" -> 0; "I'm happy" -> 0.3.
 */
export function scoreEmotionalWeight(text: string): number {
  const raw = wordsOf(normalize(text));
  if (raw.length === 0) return 0;
  const words = raw.map((w) => w.toLowerCase());

  let hits = 0;
  for (let i = 0; i < words.length; i++) {
    const base = LEXICON.get(words[i]) ?? phraseWeight(words, i);
    if (base === 0) continue;
    let weight = base;
    if (precededBy(words, i, 2, INTENSIFIERS)) weight *= INTENSIFIER_FACTOR;
    if (isAllCaps(raw[i])) weight *= INTENSIFIER_FACTOR;
    if (precededBy(words, i, 3, NEGATIONS)) weight *= NEGATION_FACTOR;
    hits += weight;
  }

  let score = Math.min(LEXICAL_CAP, hits * PER_HIT);
  let bangs = 0;
  for (let i = text.indexOf('!'); i !== -1; i = text.indexOf('!', i + 1)) bangs++;
  score += Math.min(EXCLAMATION_CAP, bangs * PER_EXCLAMATION);

  const caps = raw.filter((w) => isAllCaps(w)).length;
  if (caps >= SHOUT_MIN_WORDS && caps * 2 >= raw.length) score += SHOUT_BONUS;

  return round3(clamp01(score));
}

const PER_HIT = 0.3;
const LEXICAL_CAP = 0.8;
const INTENSIFIER_FACTOR = 1.5;
const NEGATION_FACTOR = 0.5;
const PER_EXCLAMATION = 0.1;
const EXCLAMATION_CAP = 0.2;
const SHOUT_MIN_WORDS = 3;
const SHOUT_BONUS = 0.1;

const STRONG = [
  // joy
  'happy', 'happier', 'happiest', 'happiness', 'joy', 'joyful', 'glad', 'excited', 'exciting',
  'thrilled', 'delighted', 'ecstatic', 'amazing', 'awesome', 'wonderful', 'fantastic',
  'proud', 'relieved', 'overjoyed', 'elated', 'cheerful',
  // love
  'love', 'loved', 'loving', 'adore', 'adored', 'cherish',
  // gratitude
  'grateful', 'thankful', 'gratitude', 'appreciate', 'appreciated',
  // anger
  'angry', 'furious', 'rage', 'hate', 'hated', 'mad', 'pissed', 'outraged', 'livid', 'resent',
  // fear
  'afraid', 'scared', 'terrified', 'anxious', 'anxiety', 'worried', 'nervous', 'panic',
  'panicking', 'fear', 'dread', 'frightened',
  // sadness
  'sad', 'sadness', 'depressed', 'unhappy', 'miserable', 'heartbroken', 'lonely', 'cry',
  'crying', 'cried', 'grief', 'grieving', 'devastated', 'hopeless',
  // frustration
  'frustrated', 'frustrating', 'frustration', 'exhausted', 'stressed', 'overwhelmed', 'awful', 'terrible', 'horrible',
  // shame and guilt
  'ashamed', 'embarrassed', 'guilty', 'regret', 'humiliated',
];

const MILD = [
  'thanks', 'nice', 'enjoy', 'enjoyed', 'fun', 'pleased', 'upset', 'annoyed',
  'annoying', 'irritated', 'disappointed', 'hurt', 'sorry', 'worry', 'tired', 'bored',
  'stuck', 'miss', 'missed', 'hope', 'hopeful', 'wow',
];

/** Lexicon: word -> base weight (1.0 strong, 0.5 mild). */
export const LEXICON: ReadonlyMap<string, number> = new Map<string, number>([
  ...MILD.map((w): [string, number] => [w, 0.5]),
  ...STRONG.map((w): [string, number] => [w, 1]),
]);

/** Two-word phrases scored on their second word: [first, second, weight]. */
const PHRASES: ReadonlyArray<readonly [string, string, number]> = [
  ['thank', 'you', 1],
  ['fed', 'up', 1],
  ['freaking', 'out', 1],
  ['broke', 'heart', 1],
];

function phraseWeight(words: readonly string[], i: number): number {
  for (const [first, second, weight] of PHRASES) {
    if (words[i] === second && words[i - 1] === first) return weight;
  }
  return 0;
}

const INTENSIFIERS: ReadonlySet<string> = new Set([
  'so', 'very', 'really', 'extremely', 'incredibly', 'totally', 'absolutely', 'super',
  'truly', 'deeply', 'utterly', 'completely', 'insanely',
]);

const NEGATIONS: ReadonlySet<string> = new Set([
  'not', 'never', 'no', "don't", "doesn't", "didn't", "isn't", "wasn't", "aren't",
  "weren't", "can't", 'cannot', "won't", 'hardly',
]);

function precededBy(words: readonly string[], i: number, span: number, set: ReadonlySet<string>): boolean {
  for (let j = Math.max(0, i - span); j < i; j++) if (set.has(words[j])) return true;
  return false;
}
