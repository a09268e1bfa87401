/** Deterministic workload text: realistic sentences of 60-200 characters and short keyword queries. */
import { Prng } from './prng.js';
import { ACTIVITIES, ADJECTIVES, FEELINGS, NAMES, NOUNS, PLACES, QUERY_WORDS, TIMES, VERBS_PAST } from './vocabulary.js';

export const MIN_TEXT_LENGTH = 60;
export const MAX_TEXT_LENGTH = 200;

type Clause = (r: Prng) => string;

const CLAUSES: readonly Clause[] = [
  (r) => `${r.pick(NAMES)} ${r.pick(VERBS_PAST)} the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)} at ${r.pick(PLACES)} ${r.pick(TIMES)}`,
  (r) => `${r.pick(NAMES)} has been ${r.pick(ACTIVITIES)} with ${r.pick(NAMES)} near ${r.pick(PLACES)}`,
  (r) => `${r.pick(NAMES)} felt ${r.pick(FEELINGS)} about the ${r.pick(NOUNS)} ${r.pick(TIMES)}`,
  (r) => `the ${r.pick(NOUNS)} for ${r.pick(NAMES)} is due ${r.pick(TIMES)}`,
  (r) => `${r.pick(NAMES)} wants to try ${r.pick(ACTIVITIES)} in ${r.pick(PLACES)} and bring a ${r.pick(NOUNS)}`,
  (r) => `${r.pick(NAMES)} prefers the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)} over the ${r.pick(NOUNS)}`,
];

const JOINERS = [', and ', ' because ', ' while ', '; later ', ', so '] as const;

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** One sentence from the generator's current state: one to three clauses, 60 to 200 characters. */
export function sentence(r: Prng): string {
  let text = r.pick(CLAUSES)(r);
  const extra = r.int(3);
  for (let i = 0; i < 8; i++) {
    if (i >= extra && text.length + 1 >= MIN_TEXT_LENGTH) break;
    const next = `${text}${r.pick(JOINERS)}${r.pick(CLAUSES)(r)}`;
    if (next.length + 1 > MAX_TEXT_LENGTH) {
      if (text.length + 1 >= MIN_TEXT_LENGTH) break;
      continue;
    }
    text = next;
  }
  return `${capitalize(text)}.`;
}

/** A query of one to three distinct content words of the vocabulary. */
export function query(r: Prng): string {
  const count = 1 + r.int(3);
  const words: string[] = [];
  while (words.length < count) {
    const w = r.pick(QUERY_WORDS);
    if (!words.includes(w)) words.push(w);
  }
  return words.join(' ');
}

/** A reproducible stream of item texts and queries for one seed. */
export class TextGenerator {
  private readonly texts: Prng;
  private readonly queries: Prng;

  constructor(seed: number) {
    this.texts = new Prng(seed);
    this.queries = new Prng(seed ^ 0x5bd1e995);
  }

  nextText(): string {
    return sentence(this.texts);
  }

  nextQuery(): string {
    return query(this.queries);
  }
}
