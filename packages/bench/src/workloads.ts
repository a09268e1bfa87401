/**
 * Workloads for `npm run side-by-side` (side-by-side.ts): the texts stored and the queries asked.
 * How many stored items a query matches decides much of the reference's search_nodes time (it
 * reads its whole file, then returns every entity that matches), and little of dream's (limit 10),
 * so the search ratio depends on the workload as much as on either server:
 * - `bench`: the benchmark's sentences and queries (textgen.ts);
 * - `uniform:V`: texts of 12 to 21 words drawn uniformly from V made-up words, queries of one or
 *   two of them (a small V: nearly every item matches every query);
 * - `zipf:V`: the same with words drawn by a Zipf law over V words, as word use in prose goes
 *   (most queries match a small share of the items).
 * Pure and seeded: the same name and seed give the same texts and queries.
 */
import { Prng } from './prng.js';
import { TextGenerator } from './textgen.js';

export interface Workload {
  /** As given on the command line (`bench`, `uniform:26`, `zipf:2000`). */
  readonly name: string;
  nextText(): string;
  nextQuery(): string;
}

/** Largest vocabulary accepted for uniform and zipf. */
export const MAX_VOCABULARY = 1_000_000;

const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aiou';

/** The i-th made-up word: syllables of a consonant and a vowel (bijective base 56), at least two. */
export function madeUpWord(i: number): string {
  let n = i + CONSONANTS.length * VOWELS.length + 1;
  let out = '';
  while (n > 0) {
    n -= 1;
    const s = n % (CONSONANTS.length * VOWELS.length);
    out = CONSONANTS[Math.floor(s / VOWELS.length)] + VOWELS[s % VOWELS.length] + out;
    n = Math.floor(n / (CONSONANTS.length * VOWELS.length));
  }
  return out;
}

class WordsWorkload implements Workload {
  private readonly words: string[];
  private readonly texts: Prng;
  private readonly queries: Prng;

  constructor(
    readonly name: string,
    vocabulary: number,
    private readonly draw: (r: Prng, v: number) => number,
    seed: number,
  ) {
    this.words = Array.from({ length: vocabulary }, (_, i) => madeUpWord(i));
    this.texts = new Prng(seed);
    this.queries = new Prng(seed ^ 0x5bd1e995);
  }

  private word(r: Prng): string {
    return this.words[this.draw(r, this.words.length)];
  }

  nextText(): string {
    const n = 12 + this.texts.int(10);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.word(this.texts));
    const text = out.join(' ');
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  }

  nextQuery(): string {
    const n = 1 + this.queries.int(2);
    const out: string[] = [];
    while (out.length < n) {
      const w = this.word(this.queries);
      if (!out.includes(w) || this.words.length < 2) out.push(w);
    }
    return out.join(' ');
  }
}

/** A rank in [0, v) drawn by a Zipf law (exponent 1): rank k with weight 1 / (k + 1). */
export function zipfRank(r: Prng, v: number): number {
  return Math.min(v - 1, Math.floor(Math.exp(r.next() * Math.log(v + 1))) - 1);
}

/** The workload a `--workload` value names; throws a message naming what is accepted. */
export function workload(spec: string, seed: number): Workload {
  if (spec === 'bench') {
    const gen = new TextGenerator(seed);
    return { name: spec, nextText: () => gen.nextText(), nextQuery: () => gen.nextQuery() };
  }
  const m = /^(uniform|zipf):(\d+)$/.exec(spec);
  const v = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(v) || v < 1 || v > MAX_VOCABULARY) {
    throw new Error(`--workload must be bench, uniform:<V> or zipf:<V> with V from 1 to ${MAX_VOCABULARY}, got ${JSON.stringify(spec)}`);
  }
  return m[1] === 'uniform' ? new WordsWorkload(spec, v, (r, n) => r.int(n), seed) : new WordsWorkload(spec, v, zipfRank, seed);
}
