import { slugify } from '@memory-service/kernel';
import { validationError } from './errors.js';

/** The longest name of a branch, stash or procedure, in characters. */
export const RECORD_NAME_MAX = 80;
export const RECORD_NAME_ACCEPTED = `a name of 1-${RECORD_NAME_MAX} characters holding a letter or digit; it is stored slugged (lower case, runs of other characters as "-")`;

/**
 * The stored form of a branch, stash or procedure name: its slug (lower case a-z, 0-9 and single
 * dashes), so "Plan B" and "plan-b" name the same record and a name can never carry a path, markup
 * or control character. A name with no letter or digit, or longer than RECORD_NAME_MAX, is an error
 * naming `field`.
 */
export function recordName(raw: unknown, field = 'name'): string {
  if (typeof raw !== 'string') throw validationError(field, `${field} must be a string`, RECORD_NAME_ACCEPTED);
  const name = raw.trim();
  if ([...name].length > RECORD_NAME_MAX) throw validationError(field, `${field} is longer than ${RECORD_NAME_MAX} characters`, RECORD_NAME_ACCEPTED);
  const slug = slugify(name);
  // slugify answers "untitled" for a text with no letter or digit; only "untitled" itself may be that.
  if (!/[a-z0-9]/i.test(name.normalize('NFKD')) || (slug === 'untitled' && name.toLowerCase() !== 'untitled')) {
    throw validationError(field, `${field} must hold a letter or digit (a-z, 0-9); got ${JSON.stringify(name.slice(0, 100))}`, RECORD_NAME_ACCEPTED);
  }
  return slug;
}
