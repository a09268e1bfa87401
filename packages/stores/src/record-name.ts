import { cutChars, slugify } from '@memory-service/kernel';
import { validationError } from './errors.js';

/** The longest name of a branch, stash or procedure, in characters. */
export const RECORD_NAME_MAX = 80;
export const RECORD_NAME_ACCEPTED = `a name of 1-${RECORD_NAME_MAX} characters holding a letter or digit of any script; it is stored slugged (lower case, Latin accents dropped, runs of other characters as "-")`;

/** Combining accents on a Latin letter, once decomposed (é -> e + U+0301); й, ё or a vowel sign keep theirs. */
const LATIN_ACCENTS = /(\p{Script=Latin})[\u0300-\u036f]+/gu;
/** A word of a name: a letter or digit of any script, then letters, digits and the marks inside words. */
const NAME_WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
/** A letter, digit or mark beyond a-z, A-Z, 0-9: a name holding one (once accents are dropped) is not slugged as a file name is. */
const BEYOND_ASCII = /[^\P{L}A-Za-z]|[^\P{N}0-9]|\p{M}/u;

/**
 * The slug of a name, in the letters and digits of every script: lower case, compatibility forms
 * folded (NFKC: full-width, ligatures), accents on Latin letters dropped, runs of anything but
 * letters, digits and the marks inside words as one '-', at most RECORD_NAME_MAX characters; ''
 * for a name with no letter or digit. A name whose letters and digits are a-z and 0-9 once its
 * accents are dropped gets exactly its file slug (`slugify`), the form such names were always
 * stored in, so their records are still found; the file slug drops every other letter, which made
 * "Борщ 2" and "Пельмени 2" one record named "2". Never a path, markup or control character:
 * only letters, digits, marks and single '-' inside.
 */
export function recordSlug(name: string): string {
  const folded = name.normalize('NFKD').replace(LATIN_ACCENTS, '$1');
  if (!BEYOND_ASCII.test(folded.replace(/[\u0300-\u036f]+/g, ''))) {
    const slug = slugify(name);
    return slug === 'untitled' && !/[a-z0-9]/i.test(folded) ? '' : slug;
  }
  // Each word is lower-cased alone, so a Greek capital sigma ending a word is always ς.
  const words = folded.normalize('NFC').match(NAME_WORD) ?? [];
  return cutChars(words.map((w) => w.toLowerCase()).join('-'), RECORD_NAME_MAX).replace(/-+$/, '');
}

/**
 * The stored form of a branch, stash or procedure name: its recordSlug, so "Plan B" and "plan-b"
 * name the same record, "Борщ 2" and "Пельмени 2" two, and a name can never carry a path, markup
 * or control character. A name with no letter or digit, or longer than RECORD_NAME_MAX, is an
 * error naming `field`.
 */
export function recordName(raw: unknown, field = 'name'): string {
  if (typeof raw !== 'string') throw validationError(field, `${field} must be a string`, RECORD_NAME_ACCEPTED);
  const name = raw.trim();
  if ([...name].length > RECORD_NAME_MAX) throw validationError(field, `${field} is longer than ${RECORD_NAME_MAX} characters`, RECORD_NAME_ACCEPTED);
  const slug = recordSlug(name);
  if (slug === '') {
    throw validationError(field, `${field} must hold a letter or digit (of any script); got ${JSON.stringify(cutChars(name, 100))}`, RECORD_NAME_ACCEPTED);
  }
  return slug;
}
