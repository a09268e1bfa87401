/**
 * The Snowball Russian stemmer, on words as retrieval folds them (query.ts foldText): lower case,
 * "ё" already "е" and "й" already "и" (NFKD takes their diaeresis and breve off, and the marks
 * are removed as accents are). So every ending of the published algorithm spelled with "й" is
 * spelled here with "и" ("ый" as "ыи", "йте" as "ите"), and "й" counts as the vowel "и" when the
 * regions are found: the same text gives the same stem on the index and the query side.
 *
 * The algorithm (snowballstem.org, russian): RV is the part after the first vowel, R1 the part
 * after the first non-vowel that follows a vowel, R2 the same taken again inside R1. Every ending
 * below must lie inside RV (and a letter it must follow, too); of the endings of a group, the
 * longest the word ends with is the one taken, and when that one's condition fails the group fails.
 * Step 1: remove a perfective gerund ending; failing that, remove a reflexive ending if there is
 *   one, then the first of an adjectival (an adjective ending, with a participle ending before it
 *   if there is one), a verb or a noun ending.
 * Step 2: remove a final "и".
 * Step 3: remove a derivational ending ("ост", "ость") lying inside R2.
 * Step 4: "нн" to "н"; or remove a superlative ending ("еиш", "еише"), then "нн" to "н"; or
 *   remove a final "ь".
 * Words of other letters (Ukrainian і, ї, є, ґ; Serbian ј, љ, њ...) are not Russian and are
 * left alone by the caller (stemmer.ts).
 */

const VOWELS = 'аеиоуыэюя';

function isVowel(c: string | undefined): boolean {
  return c !== undefined && VOWELS.includes(c);
}

/** Endings of one group, longest first; `after`: the letters one of them must follow (else any). */
interface Group {
  endings: readonly string[];
  after?: string;
}

function group(endings: string, after?: string): Group {
  return { endings: endings.split(' ').sort((a, b) => b.length - a.length), after };
}

// The groups without a condition come first: an ending in both (the folded "йте" is "ите") is then
// removed whatever precedes it, as the unconditional group removes it.
const PERFECTIVE_GERUND = [group('ив ивши ившись ыв ывши ывшись'), group('в вши вшись', 'ая')];
const ADJECTIVE = [group('ее ие ые ое ими ыми еи ии ыи ои ем им ым ом его ого ему ому их ых ую юю ая яя ою ею')];
const PARTICIPLE = [group('ивш ывш ующ'), group('ем нн вш ющ щ', 'ая')];
const REFLEXIVE = [group('ся сь')];
const VERB = [
  group('ила ыла ена еите уите ите или ыли еи уи ил ыл им ым ен ило ыло ено ят ует уют ит ыт ены ить ыть ишь ую ю'),
  group('ла на ете ите ли и л ем н ло но ет ют ны ть ешь нно', 'ая'),
];
const NOUN = [group('а ев ов ие ье е иями ями ами еи ии и иеи ои иям ям ием ем ам ом о у ах иях ях ы ь ию ью ю ия ья я')];
const SUPERLATIVE = [group('еиш еише')];
const DERIVATIONAL = [group('ост ость')];

/**
 * The length of `w` with the longest ending of `groups` removed, or -1 when none applies: the
 * ending must start at or after `limit`, and so must the letter an `after` group asks for. Of all
 * endings the word has, the longest decides; when its letter condition fails, nothing is removed.
 */
function strip(w: string, groups: readonly Group[], limit: number): number {
  let best: { len: number; g: Group } | null = null;
  for (const g of groups) {
    for (const e of g.endings) {
      // A later group's ending replaces an earlier one's only when longer.
      if (best !== null && e.length <= best.len) break;
      if (w.length - e.length >= limit && w.endsWith(e)) {
        best = { len: e.length, g };
        break;
      }
    }
  }
  if (best === null) return -1;
  const at = w.length - best.len;
  if (best.g.after === undefined) return at;
  return at - 1 >= limit && best.g.after.includes(w[at - 1]!) ? at : -1;
}

/** The index after the first non-vowel that follows a vowel, at or after `from` (w.length if none). */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1;
  return w.length;
}

/** The Snowball Russian stem of a folded word of the letters а-я. */
export function russianStem(word: string): string {
  let rv = word.length;
  for (let i = 0; i < word.length; i++) {
    if (isVowel(word[i])) {
      rv = i + 1;
      break;
    }
  }
  const r1 = regionAfter(word, 0);
  const r2 = regionAfter(word, r1);
  let w = word;
  const cut = (n: number): boolean => {
    if (n < 0) return false;
    w = w.slice(0, n);
    return true;
  };
  // Step 1.
  if (!cut(strip(w, PERFECTIVE_GERUND, rv))) {
    cut(strip(w, REFLEXIVE, rv));
    if (cut(strip(w, ADJECTIVE, rv))) cut(strip(w, PARTICIPLE, rv));
    else if (!cut(strip(w, VERB, rv))) cut(strip(w, NOUN, rv));
  }
  // Step 2.
  if (w.length - 1 >= rv && w.endsWith('и')) w = w.slice(0, -1);
  // Step 3.
  cut(strip(w, DERIVATIONAL, Math.max(r2, rv)));
  // Step 4.
  if (w.length - 2 >= rv && w.endsWith('нн')) w = w.slice(0, -1);
  else if (cut(strip(w, SUPERLATIVE, rv))) {
    if (w.length - 2 >= rv && w.endsWith('нн')) w = w.slice(0, -1);
  } else if (w.length - 1 >= rv && w.endsWith('ь')) w = w.slice(0, -1);
  return w;
}
