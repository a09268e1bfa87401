/** Endings a word of an audit dimension may take in the text: tests, designed, testing, schemas. */
const ENDINGS = '(?:s|es|d|ed|ing)?';

/** camelCase and PascalCase split into words (`authService` -> `auth Service`, `APIClient` -> `API Client`). */
const splitCamel = (text: string) => text.replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2').replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');

/**
 * Whether a text mentions one of the words, each as a whole word or with one of the common endings,
 * ignoring case: "test" is in "tests", "test_login.py" and "TestRunner", not in "testament"; "ci"
 * is in "ci.yml", not in "city". A letter or digit next to the word ends it; `_`, `-`, `.` and `/`
 * do not join words, so file paths are read word by word too.
 */
export function mentionsAny(words: readonly string[]): (text: string) => boolean {
  const alternatives = words.map((w) => w.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})${ENDINGS}(?![\\p{L}\\p{N}])`, 'u');
  return (text) => re.test(splitCamel(text).toLowerCase());
}
