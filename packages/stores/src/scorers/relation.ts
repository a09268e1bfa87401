import { charLength } from '@memory-service/kernel';
import { splitSentences } from './text.js';

/** A relation phrase found by {@link extractRelation} (think rule 5). */
export interface ExtractedRelation {
  subject: string;
  relation: 'is' | 'related_to' | 'connected_to';
  object: string;
}

/** A sentence this long or longer (characters, trimmed) is never read as a relation phrase. */
export const RELATION_MAX_CHARS = 200;
/** Subject and object are each 1..6 words. */
export const RELATION_MAX_WORDS = 6;
/** Only the first sentences of a thought are scanned: at most this many... */
export const RELATION_SCAN_SENTENCES = 10;
/** ...within its first this many UTF-16 units (a sentence the bound cuts is not read), so a long thought costs no more than a short one. */
export const RELATION_SCAN_CHARS = 2000;

/**
 * Finds a short relation phrase for think rule 5: `X is related to Y`,
 * `X is connected to Y` (also with "are", "was", "were" or no verb: "X related to Y"),
 * or `X is Y`, tried in that order on each sentence; the first sentence that matches wins.
 * The first {@link RELATION_SCAN_SENTENCES} sentences within the first
 * {@link RELATION_SCAN_CHARS} units are scanned, whatever the length of the text.
 *
 * A sentence gives nothing when:
 *   - it is 200 characters or longer;
 *   - it is a question (ending in "?" or starting with a question word such as
 *     "what", "who", "is", "does");
 *   - X or Y is not 1..6 words, or X does not start with a letter;
 *   - X is a bare pronoun or determiner ("it", "this", "he", "there", ...),
 *     which names no entity, or X names a secret ("my password", "the API key");
 *   - Y is negated ("X is not Y").
 * X is the clause after the last comma, semicolon or colon before "is"
 * ("Honestly, Alice is my sister" gives X = "Alice"). Trailing punctuation and
 * surrounding quotes are stripped from X and Y.
 */
export function extractRelation(text: string): ExtractedRelation | null {
  const cut = text.length > RELATION_SCAN_CHARS;
  const sentences = splitSentences(cut ? text.slice(0, RELATION_SCAN_CHARS) : text);
  // The last sentence of a cut text may be cut short: "Paris is the capital of Fr".
  if (cut && sentences.length > 1) sentences.pop();
  const n = Math.min(sentences.length, RELATION_SCAN_SENTENCES);
  for (let i = 0; i < n; i++) {
    const sentence = sentences[i];
    if (charLength(sentence) >= RELATION_MAX_CHARS) continue;
    const found = matchSentence(sentence);
    if (found) return found;
  }
  return null;
}

const QUESTION_START =
  /^(?:what|who|whom|whose|which|where|when|why|how|is|are|was|were|do|does|did|can|could|would|should|will|shall)\b/i;

const PATTERNS: ReadonlyArray<readonly [RegExp, ExtractedRelation['relation']]> = [
  [/^(.+?)\s+(?:(?:is|are|was|were)\s+)?related\s+to\s+(.+)$/i, 'related_to'],
  [/^(.+?)\s+(?:(?:is|are|was|were)\s+)?connected\s+to\s+(.+)$/i, 'connected_to'],
  [/^(.+?)\s+is\s+(.+)$/i, 'is'],
];

const BARE_SUBJECTS: ReadonlySet<string> = new Set([
  'it', 'this', 'that', 'these', 'those', 'there', 'here', 'he', 'she', 'they', 'we', 'i',
  'you', 'what', 'who', 'which', 'everything', 'nothing', 'something', 'anything',
  'everyone', 'someone', 'anyone', 'nobody', 'one',
]);

function matchSentence(sentence: string): ExtractedRelation | null {
  if (sentence.endsWith('?') || QUESTION_START.test(sentence)) return null;
  const body = sentence.replace(/[.!;:,]+$/, '').trim();
  for (const [pattern, relation] of PATTERNS) {
    const m = pattern.exec(body);
    if (!m) continue;
    const subject = clean(lastClause(m[1]));
    const object = clean(m[2]);
    if (!validSubject(subject) || !validObject(object)) return null;
    return { subject, relation, object };
  }
  return null;
}

/** Keeps the part of a subject after its last comma, semicolon or colon ("Honestly, Alice"). */
function lastClause(part: string): string {
  const pieces = part.split(/[,;:]/);
  return pieces[pieces.length - 1];
}

function clean(part: string): string {
  return part.trim().replace(/^["'`(]+|["'`),]+$/g, '').trim();
}

function wordCount(part: string): number {
  return part.length === 0 ? 0 : part.split(/\s+/).length;
}

function validSubject(subject: string): boolean {
  const n = wordCount(subject);
  if (n < 1 || n > RELATION_MAX_WORDS) return false;
  if (!/^\p{L}/u.test(subject)) return false;
  const lower = subject.toLowerCase();
  return !BARE_SUBJECTS.has(lower) && !SECRET_SUBJECT.test(lower);
}

/** Secrets never become graph nodes ("my password is ..."). */
const SECRET_SUBJECT = /\b(?:password|passphrase|passcode|pin|api key|token|secret|credentials?|ssn)\b/;

function validObject(object: string): boolean {
  const n = wordCount(object);
  if (n < 1 || n > RELATION_MAX_WORDS) return false;
  return !/^not\b/i.test(object);
}
