/**
 * The stem retrieval keeps for a word (stemWord), chosen by the word's letters: words of [a-z0-9]
 * take the Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (fts5_porter.c),
 * so terms stemmed here match the terms in the FTS5 index and its fts5vocab tables; words of the
 * Russian letters а-я the Snowball Russian stemmer (stemmer-ru.ts); words of Arabic letters a light
 * stemmer (stemmer-ar.ts). Any other word, one mixing scripts or letters of another language written
 * in those scripts (Ukrainian і, Persian پ), and words shorter than 3 or longer than 64 characters,
 * pass through unchanged.
 */

import { arabicStem } from './stemmer-ar.js';
import { russianStem } from './stemmer-ru.js';

const MAX_TOKEN = 64;

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/** Skip one vowel run then one consonant run; returns the index after the consonant, or 0. */
function gobbleVC(s: string, start: number, end: number, prevCons: boolean): number {
  let cons = prevCons;
  let i = start;
  for (; i < end; i++) {
    cons = !isVowel(s[i], cons);
    if (!cons) break;
  }
  for (i++; i < end; i++) {
    cons = !isVowel(s[i], cons);
    if (cons) return i + 1;
  }
  return 0;
}

function mGt0(s: string, n: number): boolean {
  return gobbleVC(s, 0, n, false) !== 0;
}

function mGt1(s: string, n: number): boolean {
  const k = gobbleVC(s, 0, n, false);
  return k !== 0 && gobbleVC(s, k, n, true) !== 0;
}

function mEq1(s: string, n: number): boolean {
  const k = gobbleVC(s, 0, n, false);
  return k !== 0 && gobbleVC(s, k, n, true) === 0;
}

function oStar(s: string, n: number): boolean {
  const last = s[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let cons = false;
  for (let i = 0; i < n; i++) {
    cons = !isVowel(s[i], cons);
    mask = ((mask << 1) + (cons ? 1 : 0)) & 0xffff;
  }
  return (mask & 0x7) === 0x5;
}

function hasVowel(s: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(s[i], i > 0)) return true;
  return false;
}

type Cond = (s: string, n: number) => boolean;
/** Rules keyed by the word's second-to-last letter; within a key the first matching suffix decides. */
type Table = Record<string, [suffix: string, replacement: string, cond?: Cond][]>;

const mGt1SorT: Cond = (s, n) => (s[n - 1] === 's' || s[n - 1] === 't') && mGt1(s, n);

const STEP2: Table = {
  a: [['ational', 'ate'], ['tional', 'tion']],
  c: [['enci', 'ence'], ['anci', 'ance']],
  e: [['izer', 'ize']],
  g: [['logi', 'log']],
  l: [['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous']],
  o: [['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate']],
  s: [['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous']],
  t: [['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble']],
};

const STEP3: Table = {
  a: [['ical', 'ic']],
  s: [['ness', '']],
  t: [['icate', 'ic'], ['iciti', 'ic']],
  u: [['ful', '']],
  v: [['ative', '']],
  z: [['alize', 'al']],
};

const STEP4: Table = {
  a: [['al', '']],
  c: [['ance', ''], ['ence', '']],
  e: [['er', '']],
  i: [['ic', '']],
  l: [['able', ''], ['ible', '']],
  n: [['ant', ''], ['ement', ''], ['ment', ''], ['ent', '']],
  o: [['ion', '', mGt1SorT], ['ou', '']],
  s: [['ism', '']],
  t: [['ate', ''], ['iti', '']],
  u: [['ous', '']],
  v: [['ive', '']],
  z: [['ize', '']],
};

function applyTable(w: string, table: Table, cond: Cond): string {
  const rules = table[w[w.length - 2]];
  if (!rules) return w;
  for (const [suffix, rep, own] of rules) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      return (own ?? cond)(w, n) ? w.slice(0, n) + rep : w;
    }
  }
  return w;
}

const CACHE_MAX = 50_000;
const cache = new Map<string, string>();

/**
 * The stem of one folded word (query.ts wordTokens) as the retrieval index keeps it (memoised),
 * by its script: see above. Documents, queries, typo tolerance and memory_reflect's terms all
 * stem with it, so the forms of one word meet.
 */
export function stemWord(token: string): string {
  const hit = cache.get(token);
  if (hit !== undefined) return hit;
  const stem = byScript(token);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(token, stem);
  return stem;
}

const RUSSIAN_WORD = /^[а-я]+$/;
const ARABIC_WORD = /^[\u0621-\u064a]+$/;

/**
 * Whether a word's stem may differ from it before the stem's last two letters, so that the word
 * need not begin with its stem less those (ProximityScorer's shortcut, score.ts): only an Arabic
 * word, whose article or conjunction the stemmer removes. Porter and the Russian stemmer only
 * rewrite endings.
 */
export function stemMayChangeStart(token: string): boolean {
  return ARABIC_WORD.test(token);
}

function byScript(token: string): string {
  if (token.charCodeAt(0) < 0x80) return porterStem(token);
  if (token.length < 3 || token.length > MAX_TOKEN) return token;
  if (RUSSIAN_WORD.test(token)) return russianStem(token);
  if (ARABIC_WORD.test(token)) return arabicStem(token);
  return token;
}

/** The FTS5 porter stem of one lower-case token; a token not of [a-z0-9] as it is. */
export function porterStem(token: string): string {
  if (token.length < 3 || token.length > MAX_TOKEN || !/^[a-z0-9]+$/.test(token)) return token;
  let w = token;
  // Step 1a.
  if (w[w.length - 1] === 's') {
    if (w[w.length - 2] === 'e') {
      const n = w.length;
      if ((n > 4 && w[n - 4] === 's' && w[n - 3] === 's') || (n > 3 && w[n - 3] === 'i')) w = w.slice(0, -2);
      else w = w.slice(0, -1);
    } else if (w[w.length - 2] !== 's') {
      w = w.slice(0, -1);
    }
  }
  // Step 1b.
  let stripped = false;
  const k = w[w.length - 2];
  if (k === 'e') {
    if (w.length > 3 && w.endsWith('eed')) {
      if (mGt0(w, w.length - 3)) w = w.slice(0, -1);
    } else if (w.length > 2 && w.endsWith('ed') && hasVowel(w, w.length - 2)) {
      w = w.slice(0, -2);
      stripped = true;
    }
  } else if (k === 'n' && w.length > 3 && w.endsWith('ing') && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    stripped = true;
  }
  if (stripped) {
    const k2 = w[w.length - 2];
    if (w.length > 2 && k2 === 'a' && w.endsWith('at')) w += 'e';
    else if (w.length > 2 && k2 === 'b' && w.endsWith('bl')) w += 'e';
    else if (w.length > 2 && k2 === 'i' && w.endsWith('iz')) w += 'e';
    else {
      const c = w[w.length - 1];
      if (!isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && c === w[w.length - 2]) w = w.slice(0, -1);
      else if (mEq1(w, w.length) && oStar(w, w.length)) w += 'e';
    }
  }
  // Step 1c.
  if (w[w.length - 1] === 'y' && hasVowel(w, w.length - 1)) w = `${w.slice(0, -1)}i`;
  // Steps 2 to 4.
  w = applyTable(w, STEP2, mGt0);
  w = applyTable(w, STEP3, mGt0);
  w = applyTable(w, STEP4, mGt1);
  // Step 5a.
  if (w[w.length - 1] === 'e') {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !oStar(w, n))) w = w.slice(0, -1);
  }
  // Step 5b.
  if (w.length > 1 && w[w.length - 1] === 'l' && w[w.length - 2] === 'l' && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}
